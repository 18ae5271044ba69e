/** Builds what the hub role needs: signing keys, the keyring, key cache and rate limiter. */
import type { BudgetStore } from "../redis/budget.ts";
import type { RedisClient } from "../redis/client.ts";
import { Keyring } from "../token/keyring.ts";
import { SigningKeyStore } from "../token/signing_keys.ts";
import type { HubDeps } from "../web/context.ts";
import { SdkKeyCache } from "./key_cache.ts";
import { MintRateLimiter } from "./rate_limit.ts";
import { ClientIpMintLimiter } from "./client_ip_limit.ts";

/** Loads (creating on first start) the signing keys and wires the mint path. */
export async function buildHubDeps(
  kv: Deno.Kv,
  options: {
    redis?: RedisClient;
    redisPrefix: string;
    clock: () => number;
    /** The process's budget store: the mint opens each budgeted token's counter in it. */
    budgets: BudgetStore;
  },
): Promise<HubDeps> {
  const signingKeys = new SigningKeyStore(kv, options.clock);
  return {
    signingKeys,
    keyring: await Keyring.load(signingKeys, { clock: options.clock }),
    rateLimiter: new MintRateLimiter({ redis: options.redis, prefix: options.redisPrefix }),
    clientIpLimiter: new ClientIpMintLimiter({ redis: options.redis, prefix: options.redisPrefix }),
    keys: new SdkKeyCache(kv),
    budgets: options.budgets,
    clock: options.clock,
  };
}
