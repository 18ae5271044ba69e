/**
 * Per-token render budgets (spec 2.1, 4.2 step 4), exact for as long as a token is accepted.
 *
 * - **Opened at mint.** The hub creates a token's counter when it mints it (`open`), set to expire
 *   at `exp + 2 × CLOCK_LEEWAY_S`: the verifier accepts a token until `exp + CLOCK_LEEWAY_S` on the
 *   render node's clock, and the second leeway covers skew between that clock and Redis's. So the
 *   counter outlives every render the token can make, and a spend never re-creates it.
 * - **A missing counter means lost state.** A spend of a budgeted token whose counter is gone
 *   (Redis restarted without persistence, failed over to an empty replica, was flushed, or this
 *   process restarted without Redis) is refused with 401 `token_expired` (reason `budget_reset`):
 *   the client mints a new token (it already does on `token_expired`) and carries on, and no token
 *   ever renders more than its budget.
 * - **Spend only what is left; refund what was not served.** The spend script increments only
 *   while units are left, so a refund (a render refused for capacity or killed by its deadline)
 *   gives a unit back exactly, even under concurrency.
 *
 * Every script touches one key, `budget:{<jti>}` (hash-tagged: Redis Cluster safe). A Redis
 * failure fails closed with `service_unavailable` (no free renders).
 */
import { LRUCache } from "lru-cache";
import { AppError } from "../http/problem.ts";
import { CLOCK_LEEWAY_S } from "../token/claims.ts";
import type { RedisClient } from "../redis/client.ts";
import { RedisUnavailableError } from "../redis/deadline.ts";
import { RedisScript } from "../redis/script.ts";

/** The result of spending one render: whether it was allowed and what is left (null = unlimited). */
export interface BudgetSpend {
  allowed: boolean;
  remaining: number | null;
}

/** How long after `exp` a counter lives, in seconds (see the module comment). */
export const BUDGET_GRACE_S = 2 * CLOCK_LEEWAY_S;

// KEYS[1] = counter (units used); ARGV[1] = budget.
// Returns the remaining budget after this spend, -1 when nothing is left, -2 when the counter is
// missing (state lost: the token must be re-minted).
const SPEND_SCRIPT = `
local used = redis.call('GET', KEYS[1])
if not used then return -2 end
used = tonumber(used)
local budget = tonumber(ARGV[1])
if used >= budget then return -1 end
redis.call('INCR', KEYS[1])
return budget - used - 1
`;

// KEYS[1] = counter. Gives one unit back; never below zero, never re-creates a missing counter.
const REFUND_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used <= 0 then return 0 end
redis.call('DECR', KEYS[1])
return 1
`;

/** Opens, spends and refunds render budgets per `jti`. */
export interface BudgetStore {
  /** Creates the counter of a token just minted with `budget` renders (null: nothing to do). */
  open(jti: string, budget: number | null, exp: number): Promise<void>;
  /**
   * Spends one render of a token whose budget is `budget` (null = unlimited); throws
   * `token_expired` (reason `budget_reset`) when the token's counter was lost.
   */
  spend(jti: string, budget: number | null, exp: number): Promise<BudgetSpend>;
  /** Gives back one unit spent by `spend` for a render that was not served. */
  refund(jti: string, budget: number | null): Promise<void>;
}

/** Budgets in Redis (shared by every render node). */
export class RedisBudgetStore implements BudgetStore {
  readonly #redis: RedisClient;
  readonly #spend: RedisScript;
  readonly #refund: RedisScript;
  readonly #prefix: string;

  /** Keys are `<prefix>budget:{<jti>}` (hash-tagged for Redis Cluster). */
  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#spend = new RedisScript(redis, SPEND_SCRIPT);
    this.#refund = new RedisScript(redis, REFUND_SCRIPT);
    this.#prefix = prefix;
  }

  /** `SET … NX EXAT exp + grace`: a retried open never resets a counter. */
  async open(jti: string, budget: number | null, exp: number): Promise<void> {
    if (budget === null) return;
    try {
      await this.#redis.set(this.#key(jti), "0", {
        condition: "NX",
        expiration: { type: "EXAT", value: exp + BUDGET_GRACE_S },
      });
    } catch (err) {
      throw new RedisUnavailableError(
        "Render budgets cannot be opened right now; no token was issued.",
        err,
      );
    }
  }

  /** Spends one unit atomically; throws `service_unavailable` when Redis does not answer. */
  async spend(jti: string, budget: number | null, _exp: number): Promise<BudgetSpend> {
    if (budget === null) return { allowed: true, remaining: null };
    let left: number;
    try {
      left = Number(await this.#spend.run([this.#key(jti)], [String(budget)]));
    } catch (err) {
      throw new RedisUnavailableError(
        "Render budgets cannot be checked right now; no render was served. Retry shortly.",
        err,
      );
    }
    if (left === -2) throw budgetReset();
    return left < 0 ? { allowed: false, remaining: 0 } : { allowed: true, remaining: left };
  }

  /** Gives one unit back; a failure is reported to the caller (the unit stays spent). */
  async refund(jti: string, budget: number | null): Promise<void> {
    if (budget === null) return;
    await this.#refund.run([this.#key(jti)], []);
  }

  #key(jti: string): string {
    return `${this.#prefix}budget:{${jti}}`;
  }
}

/** Budgets in process memory (one instance only; bounded). */
export class MemoryBudgetStore implements BudgetStore {
  readonly #used: LRUCache<string, { used: number; untilMs: number }>;
  readonly #clock: () => number;

  /** Holds at most `max` live tokens; each entry lives until its token's `exp` + grace. */
  constructor(clock: () => number = Date.now, max = 100_000) {
    this.#clock = clock;
    // ttlResolution 0: a clock read per access instead of a timer per millisecond.
    this.#used = new LRUCache({ max, ttlAutopurge: false, ttlResolution: 0 });
  }

  /** Creates the entry unless it exists. */
  open(jti: string, budget: number | null, exp: number): Promise<void> {
    if (budget !== null && !this.#live(jti)) {
      const untilMs = (exp + BUDGET_GRACE_S) * 1000;
      this.#used.set(jti, { used: 0, untilMs }, { ttl: Math.max(1, untilMs - this.#clock()) });
    }
    return Promise.resolve();
  }

  /** Spends one unit; a token this process never opened (or forgot) must be re-minted. */
  spend(jti: string, budget: number | null, _exp: number): Promise<BudgetSpend> {
    if (budget === null) return Promise.resolve({ allowed: true, remaining: null });
    const entry = this.#live(jti);
    if (!entry) return Promise.reject(budgetReset());
    if (entry.used >= budget) return Promise.resolve({ allowed: false, remaining: 0 });
    entry.used++;
    return Promise.resolve({ allowed: true, remaining: budget - entry.used });
  }

  /** Gives one unit back. */
  refund(jti: string, budget: number | null): Promise<void> {
    const entry = budget === null ? undefined : this.#live(jti);
    if (entry && entry.used > 0) entry.used--;
    return Promise.resolve();
  }

  /** The entry of `jti` unless its time is up on this store's clock (the LRU's TTL only frees memory). */
  #live(jti: string): { used: number; untilMs: number } | undefined {
    const entry = this.#used.get(jti);
    return entry && this.#clock() <= entry.untilMs ? entry : undefined;
  }
}

function budgetReset(): AppError {
  return new AppError(
    "token_expired",
    "This token's render budget is no longer on record (the budget store was reset); mint a new " +
      "token to continue.",
    { extensions: { reason: "budget_reset" } },
  );
}
