/** POST /settings/keys/<keyId>/roll — a new secret for the same keyId; the old one in grace. */
import { KeyShownOnce, type KeyShownOnceProps } from "@/components/settings/KeyShownOnce.tsx";
import { Shell } from "@/components/settings/Shell.tsx";
import { ownKey, partnerProjects } from "@/lib/auth/ownership.ts";
import {
  readForm,
  type SettingsFrame,
  settingsFrame,
  siteBaseUrl,
} from "@/lib/app/settings_session.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import { graceUntil, rollSdkKeySecret } from "@/lib/hub/sdk_keys.ts";
import { AppError } from "@/lib/http/problem.ts";
import { type Handlers, hubDeps, page, type PageProps } from "@/lib/app/context.ts";

interface RollData extends KeyShownOnceProps {
  frame: SettingsFrame;
}

export const handler: Handlers = {
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const frame = await settingsFrame(ctx);
    const key = await ownKey(kv, ctx.get("account")!, ctx.req.param("keyId") ?? "");
    const form = await readForm(ctx);
    const grace = form.text("grace");
    if (!/^\d{1,7}$/.test(grace)) {
      throw new AppError(
        "validation_failed",
        "The grace period must be a whole number of seconds.",
      );
    }
    const rolled = await rollSdkKeySecret(kv, key.keyId, {
      graceSeconds: Number(grace),
      now: clock(),
      partnerId: frame.account.partnerId,
    });
    if (!rolled) throw new AppError("not_found", "No such key in your account.");
    hubDeps(ctx).keys.invalidate(key.keyId);
    const until = graceUntil(rolled.record, clock());
    await appendAudit(kv, {
      partnerId: frame.account.partnerId,
      actor: { accountId: frame.account.id, email: frame.account.email },
      action: "key.roll",
      target: key.keyId,
      details: {
        graceSeconds: Number(grace),
        previousValidUntil: until ? new Date(until).toISOString() : null,
      },
    }, clock());
    return {
      ...page<RollData>({
        frame,
        plaintext: rolled.key,
        rolled: { graceUntil: until },
        projects: (await partnerProjects(kv, frame.account.partnerId))
          .filter((p) => key.allowedProjects.includes(p.slug)),
        target: {
          baseUrl: siteBaseUrl(ctx),
          keyId: key.keyId,
          project: key.allowedProjects[0],
          origin: key.allowedOrigins[0],
        },
      }, "Secret rolled"),
      headers: { "cache-control": "no-store" },
    };
  },
};

export default function Rolled({ data, nonce }: PageProps<RollData>) {
  return (
    <Shell {...data.frame} section="keys" nonce={nonce}>
      <h1>Secret rolled</h1>
      <KeyShownOnce
        plaintext={data.plaintext}
        target={data.target}
        rolled={data.rolled}
        projects={data.projects}
      />
      <p>
        <a class="button" href={`/settings/keys/${data.target.keyId}`}>Back to the key</a>
      </p>
    </Shell>
  );
}
