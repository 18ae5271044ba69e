/**
 * POST /settings/keys/<keyId>/revoke — revoke a key through the same path as the CLI's
 * `key revoke`: the record is marked revoked and the revocation goes into the revocation log in
 * Deno KV in one commit, so every render node refuses the key's tokens within the documented bound
 * (docs/tokens.md, Revocation). This process's own replica is synced before the redirect: the node
 * that served the click refuses them at once.
 */
import { ownKey } from "@/lib/auth/ownership.ts";
import { currentAccount } from "@/lib/app/settings_session.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { type Handlers, hubDeps } from "@/lib/app/context.ts";

export const handler: Handlers = {
  async POST(ctx) {
    const { kv, clock, render } = ctx.var.deps;
    const account = currentAccount(ctx);
    const key = await ownKey(kv, account, ctx.req.param("keyId") ?? "");
    await revokeSdkKey(kv, key.keyId, { now: clock(), replica: render?.revocations });
    hubDeps(ctx).keys.invalidate(key.keyId);
    await appendAudit(kv, {
      partnerId: account.partnerId,
      actor: { accountId: account.id, email: account.email },
      action: "key.revoke",
      target: key.keyId,
      details: { label: key.label },
    }, clock());
    return ctx.redirect("/settings/keys?done=revoked", 303);
  },
};
