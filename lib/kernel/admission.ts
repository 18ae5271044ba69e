/**
 * Whether the render pool takes an evaluation, decided at once when it arrives: a job is held
 * while its expected wait is within a bound, and refused with 503 `kernel_busy` and a
 * `Retry-After` otherwise — instead of a queue of fixed length that one token can fill. In order:
 *
 * 1. its token has `tokenInFlight` jobs queued or running → `token_concurrency`;
 * 2. its partner's tokens have `partnerInFlight` → `partner_concurrency`;
 * 3. `maxQueued` jobs wait beyond the free workers (a hard bound on memory) → `queue_full`;
 * 4. its expected wait exceeds `maxWaitMs` → `queue_full`.
 *
 * The expected wait is work ahead ÷ workers: the remaining time of the running jobs plus the jobs
 * the fair order (fair_queue.ts) would start before it, each at the node's average evaluation
 * time; and when its token already runs its share of workers, its own earlier jobs ÷ that share.
 * Averages are kept per token (a flooder's slow renders count against its own jobs' estimates)
 * and for the node. The node's is the mean of its last 16 evaluations, not a fast-moving average:
 * on a shared machine single evaluations take several times the usual now and then, and with a
 * weight of 0.2 each such one raised every expected wait of a burst by a fifth of it, enough to
 * refuse its tail while the real wait stayed far under the bound (issue 15). Before any timing it
 * is a guess (`INITIAL_ESTIMATE_MS`), which the first timing replaces outright. A refusal's
 * `Retry-After` is when the answer would change: the expected wait falling under the bound, or
 * one of the token's (partner's) running jobs ending.
 */
import { EvalError, type EvalErrorReason } from "./eval_errors.ts";
import type { FairJob, FairQueue, Tenant } from "./fair_queue.ts";

/** The admission limits of one pool (docs/api.md, "Render admission"). */
export interface AdmissionLimits {
  /** Jobs one token may have queued or running (`RENDER_TOKEN_CONCURRENCY`). */
  tokenInFlight: number;
  /** Workers one token may hold at once (`RENDER_TOKEN_WORKERS`); below the size, some stay free. */
  tokenRunning: number;
  /** Jobs one partner's tokens may have queued or running (`RENDER_PARTNER_CONCURRENCY`). */
  partnerInFlight: number;
  /** Longest expected wait a job is admitted with, in ms (`RENDER_QUEUE_WAIT_MS`). */
  maxWaitMs: number;
  /** Most jobs waiting beyond the free workers, whatever their expected wait. */
  maxQueued: number;
}

/** Default jobs in flight per token. */
export const DEFAULT_TOKEN_IN_FLIGHT = 4;
/** Default partner jobs in flight, per worker. */
export const PARTNER_IN_FLIGHT_PER_WORKER = 16;
/** Default longest expected wait, in ms. */
export const DEFAULT_MAX_WAIT_MS = 5000;
/** The hard bound on waiting jobs, per worker. */
export const MAX_QUEUED_PER_WORKER = 32;
/** The estimate of an evaluation before any has been timed, in ms. */
export const INITIAL_ESTIMATE_MS = 250;

/**
 * The limits of a pool of `size` workers: `overrides` where given (for the counts, 0 is the
 * default too), else 4 jobs per token, `size − 1` workers per token (at least 1), 16 × `size` jobs per partner,
 * a 5 s expected wait and 32 × `size` waiting jobs.
 *
 * @example
 * ```ts
 * admissionLimits(2); // { tokenInFlight: 4, tokenRunning: 1, partnerInFlight: 32, maxWaitMs: 5000, maxQueued: 64 }
 * ```
 */
export function admissionLimits(
  size: number,
  overrides: Partial<AdmissionLimits> = {},
): AdmissionLimits {
  const pick = (value: number | undefined, fallback: number, min: number) =>
    value !== undefined && value > 0 ? Math.max(min, Math.floor(value)) : fallback;
  return {
    tokenInFlight: pick(overrides.tokenInFlight, DEFAULT_TOKEN_IN_FLIGHT, 1),
    tokenRunning: Math.min(size, pick(overrides.tokenRunning, Math.max(1, size - 1), 1)),
    partnerInFlight: pick(overrides.partnerInFlight, PARTNER_IN_FLIGHT_PER_WORKER * size, 1),
    // 0 is a real bound here: hold nothing, take a job only when a worker is free for it.
    maxWaitMs: overrides.maxWaitMs !== undefined
      ? Math.max(0, overrides.maxWaitMs)
      : DEFAULT_MAX_WAIT_MS,
    maxQueued: overrides.maxQueued !== undefined
      ? Math.max(0, Math.floor(overrides.maxQueued))
      : MAX_QUEUED_PER_WORKER * size,
  };
}

/** What admission needs of a job: its tenant, its estimate and, once on a worker, its start. */
export interface AdmittedJob extends FairJob {
  /** Expected evaluation time (ms), fixed at admission. */
  readonly estimateMs: number;
  /** `performance.now()` when it went to a worker. */
  startedAt?: number;
}

/** Weight of the newest timing in a token's moving average. */
const ALPHA = 0.2;
/** Evaluations the node's average is the mean of. */
export const NODE_WINDOW = 16;
/** Tokens whose average is remembered (least recently timed forgotten first). */
const MAX_TOKENS = 4096;

/**
 * Admission for one pool: its limits, and moving averages of how long evaluations take.
 *
 * @example
 * ```ts
 * const admission = new Admission(2, admissionLimits(2));
 * const estimateMs = admission.admit(queue, tenant, performance.now()); // or throws kernel_busy
 * admission.observe(tenant, 420); // when the job ends
 * ```
 */
export class Admission {
  /** The limits in force. */
  readonly limits: AdmissionLimits;
  readonly #size: number;
  readonly #initialMs: number;
  /** The node's last `NODE_WINDOW` timings (a ring), and their sum. */
  readonly #window: number[] = [];
  #next = 0;
  #sum = 0;
  /** A bounded cache: insertion order is recency. */
  readonly #tokens = new Map<string, number>();

  /** Admission for `size` workers under `limits`; `initialEstimateMs` before any timing. */
  constructor(size: number, limits: AdmissionLimits, initialEstimateMs = INITIAL_ESTIMATE_MS) {
    this.#size = size;
    this.limits = limits;
    this.#initialMs = initialEstimateMs;
  }

  /** The expected evaluation time of a job of `tenant` (its token's average, else the node's). */
  estimate(tenant: Tenant): number {
    return this.#tokens.get(tenant.token) ?? this.averageMs;
  }

  /** The node's average evaluation time (ms): the mean of its last 16, the guess before any. */
  get averageMs(): number {
    const n = this.#window.length;
    return n === 0 ? this.#initialMs : this.#sum / n;
  }

  /** Records how long a job of `tenant` held its worker. */
  observe(tenant: Tenant, ms: number): void {
    if (!(ms >= 0)) return;
    if (this.#window.length < NODE_WINDOW) this.#window.push(ms);
    else {
      this.#sum -= this.#window[this.#next];
      this.#window[this.#next] = ms;
      this.#next = (this.#next + 1) % NODE_WINDOW;
    }
    // Summed afresh once per turn of the ring, so rounding cannot drift over a long uptime.
    this.#sum = this.#next === 0 ? this.#window.reduce((a, b) => a + b, 0) : this.#sum + ms;
    const before = this.#tokens.get(tenant.token);
    this.#tokens.delete(tenant.token);
    this.#tokens.set(tenant.token, before === undefined ? ms : before + ALPHA * (ms - before));
    if (this.#tokens.size > MAX_TOKENS) this.#tokens.delete(this.#tokens.keys().next().value!);
  }

  /**
   * Admits a new job of `tenant` given what `queue` holds, returning its estimate (ms); throws
   * `kernel_busy` (with `retryAfter`) when it is refused.
   */
  admit<J extends AdmittedJob>(queue: FairQueue<J>, tenant: Tenant, now: number): number {
    const { limits } = this;
    const counts = queue.counts(tenant);
    if (counts.tokenQueued + counts.tokenRunning >= limits.tokenInFlight) {
      throw this.#refuse(
        "token_concurrency",
        `This token already has ${limits.tokenInFlight} renders in progress on this node.`,
        soonestEnd(queue.runningOf(tenant, "token"), now) ?? this.expectedWait(queue, tenant, now),
      );
    }
    if (counts.partnerQueued + counts.partnerRunning >= limits.partnerInFlight) {
      throw this.#refuse(
        "partner_concurrency",
        `This partner's tokens already have ${limits.partnerInFlight} renders in progress on ` +
          "this node.",
        soonestEnd(queue.runningOf(tenant, "partner"), now) ??
          this.expectedWait(queue, tenant, now),
      );
    }
    const free = this.#size - queue.running.size;
    if (queue.queued >= limits.maxQueued + free) {
      throw this.#refuse(
        "queue_full",
        "Every render worker is busy and the queue is full.",
        soonestEnd(queue.running, now) ?? this.averageMs,
      );
    }
    const wait = this.expectedWait(queue, tenant, now);
    if (wait > limits.maxWaitMs) {
      throw this.#refuse(
        "queue_full",
        `Every render worker is busy: the expected wait (${Math.ceil(wait)} ms) is over ` +
          `${limits.maxWaitMs} ms.`,
        wait - limits.maxWaitMs,
      );
    }
    return this.estimate(tenant);
  }

  /** How long a job of `tenant` pushed now would wait for a worker, in ms (0: one is free). */
  expectedWait<J extends AdmittedJob>(queue: FairQueue<J>, tenant: Tenant, now: number): number {
    const counts = queue.counts(tenant);
    const ahead = queue.ahead(tenant);
    const free = this.#size - queue.running.size;
    const share = queue.tokenRunning;
    const tokenBound = counts.tokenQueued + counts.tokenRunning >= share;
    if (ahead < free && !tokenBound) return 0;
    let running = 0;
    for (const job of queue.running) running += remaining(job, now);
    const all = (running + ahead * this.averageMs) / this.#size;
    if (!tokenBound) return all;
    let own = 0;
    for (const job of queue.runningOf(tenant, "token")) own += remaining(job, now);
    own += counts.tokenQueued * this.estimate(tenant);
    return Math.max(all, own / share);
  }

  #refuse(reason: EvalErrorReason, message: string, waitMs: number): EvalError {
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    return new EvalError("kernel_busy", reason, `${message} Retry in ${retryAfter} s.`, {
      retryAfter,
    });
  }
}

/** A running job's expected remaining time: its estimate less its run so far, at least a quarter. */
function remaining(job: AdmittedJob, now: number): number {
  const elapsed = job.startedAt === undefined ? 0 : now - job.startedAt;
  return Math.max(job.estimateMs - elapsed, job.estimateMs / 4);
}

/** When the first of `jobs` is expected to end (ms from now), or undefined if there are none. */
function soonestEnd(jobs: Iterable<AdmittedJob>, now: number): number | undefined {
  let soonest: number | undefined;
  for (const job of jobs) {
    const left = remaining(job, now);
    if (soonest === undefined || left < soonest) soonest = left;
  }
  return soonest;
}
