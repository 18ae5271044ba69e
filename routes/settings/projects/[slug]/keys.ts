/**
 * POST /settings/projects/<slug>/keys — sets which of the partner's active keys may mint for the
 * project (form field `keys`, one per checked key), through the key update path of the key edit
 * page (lib/hub/sdk_keys.ts), then forgets the changed keys in this process's key cache as that
 * page does. Redirects back to the project page; a refused change answers the project page's
 * address with the reason (nothing was changed).
 */
import { ownProject } from "@/lib/auth/ownership.ts";
import { currentAccount, readForm } from "@/lib/app/settings_session.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import { setProjectKeys } from "@/lib/hub/project_key_access.ts";
import { toAppError } from "@/lib/http/problem.ts";
import { type Handlers, hubDeps } from "@/lib/app/context.ts";

export const handler: Handlers = {
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const account = currentAccount(ctx);
    const project = await ownProject(kv, account, ctx.req.param("slug") ?? "");
    const form = await readForm(ctx);
    const back = `/settings/projects/${project.slug}`;
    let changed;
    try {
      changed = await setProjectKeys(kv, project, form.all("keys"), clock());
    } catch (err) {
      const e = toAppError(err);
      if (e.code !== "validation_failed") throw err;
      // The page words the refusal itself from the reason and the key ids (never text from a URL).
      const q = new URLSearchParams({ keys: String(e.extensions.reason ?? "refused") });
      for (const id of (e.extensions.keys as string[] | undefined) ?? []) q.append("key_id", id);
      return ctx.redirect(`${back}?${q}#keys`, 303);
    }
    for (const record of changed) {
      // The mint path and this process's render quotas share this cache; other nodes see the
      // change within its 2 s bound.
      hubDeps(ctx).keys.invalidate(record.keyId);
      await appendAudit(kv, {
        partnerId: account.partnerId,
        actor: { accountId: account.id, email: account.email },
        action: "key.edit",
        target: record.keyId,
        details: { label: record.label, allowedProjects: record.allowedProjects },
      }, clock());
    }
    return ctx.redirect(`${back}?keys=${changed.length ? "saved" : "unchanged"}#keys`, 303);
  },
};
