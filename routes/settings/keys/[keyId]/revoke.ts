/**
 * POST /settings/keys/<keyId>/revoke — revoke a key through the same path as the CLI's
 * `key revoke`: the record is marked revoked and, with Redis, the key goes on the shared
 * revocation list so every token it minted stops rendering at once.
 */
import { ownKey } from "@/lib/auth/ownership.ts";
import { currentAccount } from "@/lib/auth/settings_session.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import { revokeSdkKey } from "@/lib/hub/sdk_keys.ts";
import { RedisRevocationList } from "@/lib/redis/revocation.ts";
import { type Handlers, hubDeps } from "@/lib/web/context.ts";

export const handler: Handlers = {
  async POST(ctx) {
    const { kv, clock, redis, config } = ctx.var.deps;
    const account = currentAccount(ctx);
    const key = await ownKey(kv, account, ctx.req.param("keyId") ?? "");
    const revocations = redis ? new RedisRevocationList(redis, config.redisPrefix) : undefined;
    await revokeSdkKey(kv, key.keyId, { now: clock(), revocations });
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
