/** GET /settings/keys — the partner's SDK keys; POST — create a key (its plaintext shown once). */
import { KeyForm, keyFormValues } from "@/components/settings/KeyForm.tsx";
import { KeyShownOnce } from "@/components/settings/KeyShownOnce.tsx";
import { Notice, ScrollRegion, Shell, When } from "@/components/settings/Shell.tsx";
import { partnerProjects } from "@/lib/auth/ownership.ts";
import {
  readForm,
  type SettingsFrame,
  settingsFrame,
  siteBaseUrl,
  siteKernelUrl,
} from "@/lib/app/settings_session.ts";
import { formError } from "@/lib/app/sign_in_flow.ts";
import type { AppError } from "@/lib/http/problem.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import type { SnippetTarget } from "@/lib/hub/embed_snippets.ts";
import { keyInputFromForm, type SdkKeyFormValues } from "@/lib/hub/sdk_key_form.ts";
import { createSdkKey, graceUntil, listSdkKeys, type SdkKeyView } from "@/lib/hub/sdk_keys.ts";
import { getSdkKey } from "@/lib/store/sdk_keys.ts";
import { type Handlers, page, type PageProps } from "@/lib/app/context.ts";

type KeysData =
  & { frame: SettingsFrame }
  & (
    | { view: "list"; keys: Array<SdkKeyView & { graceUntil: number | null }>; notice?: string }
    | {
      view: "form";
      values: SdkKeyFormValues;
      projects: Array<{ slug: string; title: string }>;
      error?: string;
      errorCode?: string;
    }
    | {
      view: "created";
      plaintext: string;
      target: SnippetTarget;
      projects: Array<{ slug: string; title: string }>;
    }
  );

export const handler: Handlers = {
  async GET(ctx) {
    const { kv, clock } = ctx.var.deps;
    const frame = await settingsFrame(ctx);
    const keys = await listSdkKeys(kv, frame.account.partnerId);
    const withGrace = await Promise.all(keys.map(async (k) => {
      const record = await getSdkKey(kv, k.keyId);
      return { ...k, graceUntil: record ? graceUntil(record, clock()) : null };
    }));
    withGrace.sort((a, b) => Number(a.revoked) - Number(b.revoked) || b.createdAt - a.createdAt);
    const notice = ctx.req.query("done") === "revoked" ? "The key was revoked." : undefined;
    return page<KeysData>({ frame, view: "list", keys: withGrace, notice }, "SDK API keys");
  },
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const frame = await settingsFrame(ctx);
    const values = keyFormValues(await readForm(ctx));
    try {
      const { key, record } = await createSdkKey(
        kv,
        keyInputFromForm(frame.account.partnerId, values),
        clock(),
      );
      await appendAudit(kv, {
        partnerId: frame.account.partnerId,
        actor: { accountId: frame.account.id, email: frame.account.email },
        action: "key.create",
        target: record.keyId,
        details: {
          label: record.label,
          allowedOrigins: record.allowedOrigins,
          allowedProjects: record.allowedProjects,
        },
      }, clock());
      const target: SnippetTarget = {
        baseUrl: siteBaseUrl(ctx),
        kernelUrl: siteKernelUrl(ctx),
        keyId: record.keyId,
        project: record.allowedProjects[0],
        origin: record.allowedOrigins[0],
      };
      return {
        ...page<KeysData>({
          frame,
          view: "created",
          plaintext: key,
          target,
          projects: (await partnerProjects(kv, frame.account.partnerId))
            .filter((p) => record.allowedProjects.includes(p.slug)),
        }, "Key created"),
        headers: { "cache-control": "no-store" },
      };
    } catch (err) {
      const error = formError(err);
      // formError rethrows anything but an AppError below 500: err is one here.
      const errorCode = (err as AppError).code;
      const projects = await partnerProjects(kv, frame.account.partnerId);
      return {
        ...page<KeysData>({ frame, view: "form", values, projects, error, errorCode }, "New key"),
        status: 422,
      };
    }
  },
};

export default function Keys({ data, nonce }: PageProps<KeysData>) {
  const { frame } = data;
  return (
    <Shell {...frame} section="keys" nonce={nonce}>
      {data.view === "created"
        ? (
          <>
            <h1>Key created</h1>
            <KeyShownOnce
              plaintext={data.plaintext}
              target={data.target}
              projects={data.projects}
            />
            <p>
              <a class="button" href={`/settings/keys/${data.target.keyId}`}>Go to the key</a>
            </p>
          </>
        )
        : data.view === "form"
        ? (
          <>
            <h1>New SDK API key</h1>
            <section class="card">
              <KeyForm
                action="/settings/keys"
                csrf={frame.csrf}
                values={data.values}
                projects={data.projects}
                submit="Create key"
                error={data.error}
                errorCode={data.errorCode}
              />
            </section>
          </>
        )
        : (
          <>
            <div class="page-head">
              <h1>SDK API keys</h1>
              <a class="button primary" href="/settings/keys/new">New key</a>
            </div>
            <Notice text={data.notice} />
            <section class="card">
              {data.keys.length === 0
                ? <p class="muted">No keys yet. Create one to embed the configurator.</p>
                : (
                  <ScrollRegion label="SDK API keys">
                    <table class="list">
                      <thead>
                        <tr>
                          <th>Label</th>
                          <th>keyId</th>
                          <th>Origins</th>
                          <th>Projects</th>
                          <th>Status</th>
                          <th>Created</th>
                        </tr>
                      </thead>
                      <tbody>
                        {data.keys.map((k) => (
                          <tr data-key-id={k.keyId}>
                            <td>
                              <a href={`/settings/keys/${k.keyId}`}>{k.label}</a>
                            </td>
                            <td>
                              <code>{k.keyId}</code>
                            </td>
                            <td>{k.allowedOrigins.join(", ")}</td>
                            <td>{k.allowedProjects.join(", ")}</td>
                            <td>
                              {k.revoked
                                ? <span class="badge revoked">revoked</span>
                                : k.graceUntil
                                ? <span class="badge grace">rolled · old secret in grace</span>
                                : <span class="badge">active</span>}
                            </td>
                            <td>
                              <When ms={k.createdAt} />
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </ScrollRegion>
                )}
            </section>
          </>
        )}
    </Shell>
  );
}
