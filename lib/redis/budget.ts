/**
 * Per-token render budgets (spec 2.1, 4.2 step 4). One atomic Lua script spends a unit and
 * answers what remains; the counter key expires when the token does, so Redis holds nothing for
 * dead tokens. Without Redis an in-process map does the same for a single instance. A Redis
 * failure is reported as `service_unavailable`: budgets fail closed (no free renders).
 */
import { LRUCache } from "lru-cache";
import { AppError } from "../http/problem.ts";
import type { RedisClient } from "./client.ts";
import { RedisScript } from "./script.ts";

/** The result of spending one render: whether it was allowed and what is left (null = unlimited). */
export interface BudgetSpend {
  allowed: boolean;
  remaining: number | null;
}

// KEYS[1] = counter; ARGV[1] = budget, ARGV[2] = token exp (unix seconds).
// Returns the remaining budget after this spend, or -1 when it was already spent.
const SPEND_SCRIPT = `
local used = redis.call('INCR', KEYS[1])
if used == 1 then redis.call('EXPIREAT', KEYS[1], tonumber(ARGV[2])) end
local budget = tonumber(ARGV[1])
if used > budget then return -1 end
return budget - used
`;

/** Spends render budgets per `jti`. */
export interface BudgetStore {
  /** Spends one render of a token whose budget is `budget` (null = unlimited). */
  spend(jti: string, budget: number | null, exp: number): Promise<BudgetSpend>;
}

/** Budgets in Redis (shared by every render node). */
export class RedisBudgetStore implements BudgetStore {
  readonly #script: RedisScript;
  readonly #prefix: string;

  /** Keys are `<prefix>budget:{<jti>}` (hash-tagged for Redis Cluster). */
  constructor(redis: RedisClient, prefix: string) {
    this.#script = new RedisScript(redis, SPEND_SCRIPT);
    this.#prefix = prefix;
  }

  /** Spends one unit atomically; throws `service_unavailable` when Redis does not answer. */
  async spend(jti: string, budget: number | null, exp: number): Promise<BudgetSpend> {
    if (budget === null) return { allowed: true, remaining: null };
    const key = `${this.#prefix}budget:{${jti}}`;
    const args = [String(budget), String(exp)];
    let left: number;
    try {
      left = Number(await this.#script.run([key], args));
    } catch (err) {
      throw new AppError(
        "service_unavailable",
        "Render budgets cannot be checked right now; no render was served. Retry shortly.",
        { cause: err, headers: { "Retry-After": "1" } },
      );
    }
    return left < 0 ? { allowed: false, remaining: 0 } : { allowed: true, remaining: left };
  }
}

/** Budgets in process memory (one instance only; bounded). */
export class MemoryBudgetStore implements BudgetStore {
  readonly #used: LRUCache<string, { used: number }>;
  readonly #clock: () => number;

  /** Holds at most `max` live tokens; each entry lives until its token's `exp`. */
  constructor(clock: () => number = Date.now, max = 100_000) {
    this.#clock = clock;
    // ttlResolution 0: a clock read per access instead of a timer per millisecond.
    this.#used = new LRUCache({ max, ttlAutopurge: false, ttlResolution: 0 });
  }

  /** Spends one unit. */
  spend(jti: string, budget: number | null, exp: number): Promise<BudgetSpend> {
    if (budget === null) return Promise.resolve({ allowed: true, remaining: null });
    let entry = this.#used.get(jti);
    if (!entry) {
      entry = { used: 0 };
      this.#used.set(jti, entry, { ttl: Math.max(1, exp * 1000 - this.#clock()) });
    }
    entry.used++;
    const left = budget - entry.used;
    return Promise.resolve(
      left < 0 ? { allowed: false, remaining: 0 } : { allowed: true, remaining: left },
    );
  }
}
