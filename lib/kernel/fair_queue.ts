/**
 * The order in which the render pool hands admitted evaluations to free workers: round-robin
 * across partners, then round-robin across a partner's tokens, each token's own jobs first come
 * first served — not one FIFO, so a flood from one token (or one partner's many tokens) waits
 * behind itself while everyone else's next job is at most one round away. A token may also hold
 * only so many workers at once (`tokenRunning`): with a cap below the pool size, a flooding token
 * always leaves a worker for the others, and its own extra jobs wait.
 *
 * The rounds are kept as start-time fair queuing with unit costs, at both levels: each partner
 * (token) has the number of the turn it may take next, `finish`; a newcomer starts at the current
 * turn, `virtual`; the eligible one with the lowest turn goes first (ties: the one waiting
 * longest). So a partner that arrives while another floods goes before the flooder's next job,
 * not after it, and no one is passed over for more than one turn of each other tenant.
 *
 * This file is only the order and the counts (which admission reads, see admission.ts); it starts
 * nothing and knows nothing of workers or time. Tenants exist only while they have a job queued
 * or running, so memory follows the jobs admitted, which admission bounds.
 */

/** Whose evaluation a job is: the session token's `jti` and the token's `partner`. */
export interface Tenant {
  token: string;
  partner: string;
}

/** What the queue needs of a job. */
export interface FairJob {
  readonly tenant: Tenant;
}

/** A tenant's queued and running jobs, counted at token and at partner level. */
export interface TenantCounts {
  tokenQueued: number;
  tokenRunning: number;
  partnerQueued: number;
  partnerRunning: number;
}

interface TokenState<J> {
  queue: J[];
  running: Set<J>;
  /** The turn (within its partner) its next job may take. */
  finish: number;
}

interface PartnerState<J> {
  /** Insertion order: ties between tokens go to the one that arrived first. */
  tokens: Map<string, TokenState<J>>;
  queued: number;
  running: number;
  /** The turn its next job may take. */
  finish: number;
  /** The turn of the token served last, where a newcomer among its tokens starts. */
  virtual: number;
}

/**
 * Queued and running jobs by partner and token, served round-robin.
 *
 * @example
 * ```ts
 * const queue = new FairQueue<Job>(1);
 * queue.push(job);
 * const next = queue.next(); // the job to dispatch now, marked running
 * queue.release(next!);      // when it settles
 * ```
 */
export class FairQueue<J extends FairJob> {
  /** Most jobs of one token running at once. */
  readonly tokenRunning: number;
  /** Insertion order: ties between partners go to the one that arrived first. */
  readonly #partners = new Map<string, PartnerState<J>>();
  readonly #running = new Set<J>();
  #queued = 0;
  /** The turn of the partner served last, where a newcomer starts. */
  #virtual = 0;

  /** An empty queue whose tokens may each run at most `tokenRunning` jobs at once. */
  constructor(tokenRunning: number) {
    if (!(tokenRunning >= 1)) throw new TypeError("tokenRunning must be at least 1");
    this.tokenRunning = Math.floor(tokenRunning);
  }

  /** Jobs waiting for a worker. */
  get queued(): number {
    return this.#queued;
  }

  /** Jobs on a worker. */
  get running(): ReadonlySet<J> {
    return this.#running;
  }

  /** How many jobs `tenant`'s token and partner have queued and running. */
  counts(tenant: Tenant): TenantCounts {
    const partner = this.#partners.get(tenant.partner);
    const token = partner?.tokens.get(tenant.token);
    return {
      tokenQueued: token?.queue.length ?? 0,
      tokenRunning: token?.running.size ?? 0,
      partnerQueued: partner?.queued ?? 0,
      partnerRunning: partner?.running ?? 0,
    };
  }

  /** The running jobs of `tenant`'s token, or of its whole partner. */
  runningOf(tenant: Tenant, scope: "token" | "partner"): J[] {
    const partner = this.#partners.get(tenant.partner);
    if (!partner) return [];
    if (scope === "token") return [...partner.tokens.get(tenant.token)?.running ?? []];
    return [...partner.tokens.values()].flatMap((token) => [...token.running]);
  }

  /**
   * How many queued jobs would start before a job of `tenant` pushed now, were every job
   * eligible: in its partner's turn it comes after its token's queued jobs and as many of each
   * sibling token's (one per round); every other partner gets as many turns before it. An upper
   * bound: the order within a round is not known in advance, so the others are counted first.
   */
  ahead(tenant: Tenant): number {
    const partner = this.#partners.get(tenant.partner);
    const own = partner?.tokens.get(tenant.token)?.queue.length ?? 0;
    let turn = own + 1; // this job's position in its partner's sequence
    for (const [key, token] of partner?.tokens ?? []) {
      if (key !== tenant.token) turn += Math.min(token.queue.length, own + 1);
    }
    let ahead = turn - 1;
    for (const [key, other] of this.#partners) {
      if (key !== tenant.partner) ahead += Math.min(other.queued, turn);
    }
    return ahead;
  }

  /** Queues a job behind its token's earlier jobs. */
  push(job: J): void {
    const { token, partner } = this.#state(job.tenant);
    token.queue.push(job);
    partner.queued++;
    this.#queued++;
  }

  /**
   * The next job to run, marked running, or undefined when no queued job may run now (none
   * queued, or every token with queued jobs already runs `tokenRunning`).
   */
  next(): J | undefined {
    let best:
      | { partner: PartnerState<J>; turn: number; token: TokenState<J>; tokenTurn: number }
      | undefined;
    for (const partner of this.#partners.values()) {
      if (partner.queued === 0) continue;
      const turn = Math.max(this.#virtual, partner.finish);
      if (best && turn >= best.turn) continue;
      let token: TokenState<J> | undefined;
      let tokenTurn = Infinity;
      for (const candidate of partner.tokens.values()) {
        if (candidate.queue.length === 0 || candidate.running.size >= this.tokenRunning) continue;
        const t = Math.max(partner.virtual, candidate.finish);
        if (t < tokenTurn) [token, tokenTurn] = [candidate, t];
      }
      if (token) best = { partner, turn, token, tokenTurn };
    }
    if (!best) return undefined;
    const { partner, turn, token, tokenTurn } = best;
    this.#virtual = turn;
    partner.finish = turn + 1;
    partner.virtual = tokenTurn;
    token.finish = tokenTurn + 1;
    const job = token.queue.shift()!;
    token.running.add(job);
    partner.queued--;
    partner.running++;
    this.#queued--;
    this.#running.add(job);
    return job;
  }

  /** Forgets a job, queued or running (idempotent); returns where it was. */
  release(job: J): "queued" | "running" | undefined {
    const partner = this.#partners.get(job.tenant.partner);
    const token = partner?.tokens.get(job.tenant.token);
    if (!partner || !token) return undefined;
    let where: "queued" | "running" | undefined;
    if (token.running.delete(job)) {
      this.#running.delete(job);
      partner.running--;
      where = "running";
    } else {
      const i = token.queue.indexOf(job);
      if (i < 0) return undefined;
      token.queue.splice(i, 1);
      partner.queued--;
      this.#queued--;
      where = "queued";
    }
    if (token.queue.length === 0 && token.running.size === 0) {
      partner.tokens.delete(job.tenant.token);
      if (partner.tokens.size === 0) this.#partners.delete(job.tenant.partner);
    }
    return where;
  }

  /** Removes and returns every queued job (running ones stay). */
  drain(): J[] {
    const out: J[] = [];
    for (const partner of this.#partners.values()) {
      for (const token of partner.tokens.values()) out.push(...token.queue);
    }
    for (const job of out) this.release(job);
    return out;
  }

  #state(tenant: Tenant): { partner: PartnerState<J>; token: TokenState<J> } {
    let partner = this.#partners.get(tenant.partner);
    if (!partner) {
      partner = { tokens: new Map(), queued: 0, running: 0, finish: 0, virtual: 0 };
      this.#partners.set(tenant.partner, partner);
    }
    let token = partner.tokens.get(tenant.token);
    if (!token) {
      token = { queue: [], running: new Set(), finish: 0 };
      partner.tokens.set(tenant.token, token);
    }
    return { partner, token };
  }
}
