/** Builds what the hub role needs: signing keys, the keyring, key cache and rate limiter. */
import type { BudgetStore } from "../render/budget.ts";
import type { RedisClient } from "../redis/client.ts";
import { Keyring } from "../token/keyring.ts";
import { SigningKeyStore } from "../token/signing_keys.ts";
import { SdkKeyCache } from "../store/sdk_key_cache.ts";
import { MintRateLimiter } from "./rate_limit.ts";
import type { UsageRecorder } from "./usage.ts";

/** What the hub role adds: signing keys and the mint path. */
export interface HubDeps {
  /** Durable signing keys (the JWKS is published from here). */
  signingKeys: SigningKeyStore;
  /** In-process view of the signing keys: signs mints, resolves kids for verification. */
  keyring: Keyring;
  /** Mint rate limits per key and, in the browser flow, per client network (one Redis call). */
  rateLimiter: MintRateLimiter;
  /** Render budgets: the mint opens each budgeted token's counter. */
  budgets: Pick<BudgetStore, "open">;
  /** SDK key records for the mint path, cached for at most 2 s. */
  keys: SdkKeyCache;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Per-key usage counters written by the mint path (settings → usage). */
  usage?: UsageRecorder;
}

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
    keys: new SdkKeyCache(kv),
    budgets: options.budgets,
    clock: options.clock,
  };
}
