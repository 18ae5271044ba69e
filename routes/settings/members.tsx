/** GET /settings/members — the partner's accounts; POST — invite one (owners only). */
import {
  CsrfField,
  ErrorBox,
  fieldError,
  ScrollRegion,
  Shell,
  Snippet,
  When,
} from "@/components/settings/Shell.tsx";
import { inviteMember } from "@/lib/auth/accounts.ts";
import { requireOwner } from "@/lib/auth/ownership.ts";
import {
  currentAccount,
  readForm,
  type SettingsFrame,
  settingsFrame,
  siteBaseUrl,
} from "@/lib/app/settings_session.ts";
import { formError } from "@/lib/app/sign_in_flow.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import { listPartnerAccounts } from "@/lib/store/accounts.ts";
import { type Handlers, page, type PageProps, type RouteContext } from "@/lib/app/context.ts";

interface MembersData {
  frame: SettingsFrame;
  members: Array<{ email: string; role: string; createdAt: number }>;
  inviteLink?: string;
  error?: string;
}

async function load(ctx: RouteContext): Promise<MembersData> {
  const frame = await settingsFrame(ctx);
  const members = (await listPartnerAccounts(ctx.var.deps.kv, frame.account.partnerId))
    .map((a) => ({ email: a.email, role: a.role, createdAt: a.createdAt }))
    .sort((a, b) => a.createdAt - b.createdAt);
  return { frame, members };
}

export const handler: Handlers = {
  async GET(ctx) {
    return page(await load(ctx), "Members");
  },
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const account = currentAccount(ctx);
    requireOwner(account);
    const data = await load(ctx);
    const form = await readForm(ctx);
    try {
      const email = form.text("email");
      const role = form.text("role");
      const token = await inviteMember(kv, account, { email, role }, clock());
      await appendAudit(kv, {
        partnerId: account.partnerId,
        actor: { accountId: account.id, email: account.email },
        action: "member.invite",
        target: email.trim().toLowerCase(),
        details: { role },
      }, clock());
      data.inviteLink = `${siteBaseUrl(ctx)}/auth/signup?invite=${token}`;
      return { ...page(data, "Members"), headers: { "cache-control": "no-store" } };
    } catch (err) {
      return { ...page({ ...data, error: formError(err) }, "Members"), status: 422 };
    }
  },
};

export default function Members({ data, nonce }: PageProps<MembersData>) {
  const owner = data.frame.account.role === "owner";
  return (
    <Shell {...data.frame} section="members" nonce={nonce}>
      <h1>Members</h1>
      <section class="card">
        <ScrollRegion label="Members">
          <table class="list" id="members">
            <thead>
              <tr>
                <th>Email</th>
                <th>Role</th>
                <th>Joined</th>
              </tr>
            </thead>
            <tbody>
              {data.members.map((m) => (
                <tr>
                  <td>{m.email}</td>
                  <td>{m.role}</td>
                  <td>
                    <When ms={m.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </section>
      <section class="card">
        <h2>Invite</h2>
        {owner
          ? (
            <>
              <p>
                Owners manage members, keys and projects; developers manage keys and projects. The
                link works once, for 7 days, for the address you enter.
              </p>
              <ErrorBox error={data.error} />
              {data.inviteLink
                ? <Snippet id="invite-link" title="Send this link" code={data.inviteLink} />
                : null}
              <form method="post" action="/settings/members" class="actions">
                <CsrfField token={data.frame.csrf} />
                <label class="field">
                  Email
                  <input
                    type="email"
                    name="email"
                    required
                    autocomplete="off"
                    placeholder="name@company.example"
                    {...fieldError(Boolean(data.error))}
                  />
                </label>
                <label class="field">
                  Role
                  <select name="role">
                    <option value="developer">developer</option>
                    <option value="owner">owner</option>
                  </select>
                </label>
                <button type="submit">Create invitation link</button>
              </form>
            </>
          )
          : <p class="muted">Only owners can invite members.</p>}
      </section>
    </Shell>
  );
}
