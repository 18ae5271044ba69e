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
 * - **A retried request is not paid twice.** A spend may name an idempotency key (the client's
 *   `Idempotency-Key` header, one per logical render): the spend records `key → (fingerprint,
 *   remaining)` in the same script, so a retry of that render (after a dropped connection, on
 *   whichever node) is answered "allowed, the same remaining" without a second unit. The record
 *   lives exactly as long as the counter; a refund deletes it (the retry then pays, as it should);
 *   a key replayed with another DAG is refused (`idempotency_key_reused`).
 *
 * Every script touches `budget:{<jti>}` and, with an idempotency key, `budget:{<jti>}:idem:<key>`:
 * one hash tag, so one slot on a Redis Cluster. A Redis failure fails closed with
 * `service_unavailable` (no free renders).
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
  /** True when an earlier request with the same idempotency key already paid for this render. */
  replayed?: boolean;
}

/** The idempotency key of a spend and what it pays for (the request's cache key). */
export interface IdempotentSpend {
  key: string;
  /** What the key was first used for; the same key with another fingerprint is refused. */
  fingerprint: string;
}

/** How long after `exp` a counter lives, in seconds (see the module comment). */
export const BUDGET_GRACE_S = 2 * CLOCK_LEEWAY_S;

// KEYS[1] = counter (units used); KEYS[2] (optional) = the idempotency record;
// ARGV[1] = budget, ARGV[2] = the request's fingerprint (with KEYS[2]).
// Returns {SPENT, remaining after this spend}, {REPLAYED, remaining the first spend returned},
// {EXHAUSTED, 0}, {LOST, 0} when the counter is missing (state lost: the token must be re-minted)
// or {MISMATCH, 0} when the key was used for another request. The record is `<remaining> <fp>`
// and expires with the counter (its PTTL less 1 ms), so it never outlives the token it belongs to.
const SPEND_SCRIPT = `
local used = redis.call('GET', KEYS[1])
if not used then return {-2, 0} end
if KEYS[2] then
  local seen = redis.call('GET', KEYS[2])
  if seen then
    local sep = string.find(seen, ' ', 1, true)
    if string.sub(seen, sep + 1) ~= ARGV[2] then return {-3, 0} end
    return {1, tonumber(string.sub(seen, 1, sep - 1))}
  end
end
used = tonumber(used)
local budget = tonumber(ARGV[1])
if used >= budget then return {-1, 0} end
redis.call('INCR', KEYS[1])
local left = budget - used - 1
if KEYS[2] then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 1 then
    -- 1 ms less: PX counts from the command's own clock reading, which may be a millisecond
    -- after the one PTTL used, and the record must not outlive the counter.
    redis.call('SET', KEYS[2], left .. ' ' .. ARGV[2], 'PX', ttl - 1)
  end
end
return {0, left}
`;

const SPENT = 0;
const REPLAYED = 1;
const EXHAUSTED = -1;
const LOST = -2;
const MISMATCH = -3;

// KEYS[1] = counter; KEYS[2] (optional) = the idempotency record of the spend given back.
// Gives one unit back; never below zero, never re-creates a missing counter. The record goes
// too: the render was not served, so its retry must pay.
const REFUND_SCRIPT = `
if KEYS[2] then redis.call('DEL', KEYS[2]) end
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
   * `token_expired` (reason `budget_reset`) when the token's counter was lost. With `idempotency`,
   * a key that already paid answers `replayed` with the same remaining and spends nothing; the
   * key with another fingerprint throws `idempotency_key_reused`.
   */
  spend(
    jti: string,
    budget: number | null,
    exp: number,
    idempotency?: IdempotentSpend,
  ): Promise<BudgetSpend>;
  /**
   * Gives back one unit spent by `spend` for a render that was not served (never for a replayed
   * spend: it paid nothing), and forgets its idempotency key.
   */
  refund(jti: string, budget: number | null, idempotencyKey?: string): Promise<void>;
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
  async spend(
    jti: string,
    budget: number | null,
    _exp: number,
    idempotency?: IdempotentSpend,
  ): Promise<BudgetSpend> {
    if (budget === null) return { allowed: true, remaining: null };
    const keys = [this.#key(jti)];
    const args = [String(budget)];
    if (idempotency) {
      keys.push(this.#idemKey(jti, idempotency.key));
      args.push(idempotency.fingerprint);
    }
    let status: number;
    let left: number;
    try {
      const answer = await this.#spend.run(keys, args) as [number, number];
      [status, left] = [Number(answer[0]), Number(answer[1])];
    } catch (err) {
      throw new RedisUnavailableError(
        "Render budgets cannot be checked right now; no render was served. Retry shortly.",
        err,
      );
    }
    switch (status) {
      case SPENT:
        return { allowed: true, remaining: left };
      case REPLAYED:
        return { allowed: true, remaining: left, replayed: true };
      case LOST:
        throw budgetReset();
      case MISMATCH:
        throw keyReused();
      case EXHAUSTED:
      default:
        return { allowed: false, remaining: 0 };
    }
  }

  /** Gives one unit back; a failure is reported to the caller (the unit stays spent). */
  async refund(jti: string, budget: number | null, idempotencyKey?: string): Promise<void> {
    if (budget === null) return;
    const keys = [this.#key(jti)];
    if (idempotencyKey) keys.push(this.#idemKey(jti, idempotencyKey));
    await this.#refund.run(keys, []);
  }

  #key(jti: string): string {
    return `${this.#prefix}budget:{${jti}}`;
  }

  /** The idempotency record: same `{jti}` hash tag as the counter, so the same slot. */
  #idemKey(jti: string, key: string): string {
    return `${this.#prefix}budget:{${jti}}:idem:${key}`;
  }
}

/** Budgets in process memory (one instance only; bounded). */
export class MemoryBudgetStore implements BudgetStore {
  readonly #used: LRUCache<string, MemoryEntry>;
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
  spend(
    jti: string,
    budget: number | null,
    _exp: number,
    idempotency?: IdempotentSpend,
  ): Promise<BudgetSpend> {
    if (budget === null) return Promise.resolve({ allowed: true, remaining: null });
    const entry = this.#live(jti);
    if (!entry) return Promise.reject(budgetReset());
    const seen = idempotency && entry.seen?.get(idempotency.key);
    if (seen) {
      if (seen.fingerprint !== idempotency.fingerprint) return Promise.reject(keyReused());
      return Promise.resolve({ allowed: true, remaining: seen.remaining, replayed: true });
    }
    if (entry.used >= budget) return Promise.resolve({ allowed: false, remaining: 0 });
    entry.used++;
    const remaining = budget - entry.used;
    // At most `budget` records per token: each one paid a unit.
    if (idempotency) {
      (entry.seen ??= new Map()).set(idempotency.key, {
        fingerprint: idempotency.fingerprint,
        remaining,
      });
    }
    return Promise.resolve({ allowed: true, remaining });
  }

  /** Gives one unit back and forgets its idempotency key. */
  refund(jti: string, budget: number | null, idempotencyKey?: string): Promise<void> {
    const entry = budget === null ? undefined : this.#live(jti);
    if (entry && idempotencyKey) entry.seen?.delete(idempotencyKey);
    if (entry && entry.used > 0) entry.used--;
    return Promise.resolve();
  }

  /** The entry of `jti` unless its time is up on this store's clock (the LRU's TTL only frees memory). */
  #live(jti: string): MemoryEntry | undefined {
    const entry = this.#used.get(jti);
    return entry && this.#clock() <= entry.untilMs ? entry : undefined;
  }
}

/** A token's units used in memory, and the idempotency keys that paid. */
interface MemoryEntry {
  used: number;
  untilMs: number;
  seen?: Map<string, { fingerprint: string; remaining: number }>;
}

function keyReused(): AppError {
  return new AppError(
    "idempotency_key_reused",
    "This Idempotency-Key was already used for a different render; send a new key per render.",
  );
}

function budgetReset(): AppError {
  return new AppError(
    "token_expired",
    "This token's render budget is no longer on record (the budget store was reset); mint a new " +
      "token to continue.",
    { extensions: { reason: "budget_reset" } },
  );
}
