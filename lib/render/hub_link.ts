/**
 * A kernel node's link to the hub (`ROLE=kernel`, `HUB_URL`): the one place that fetches the
 * hub's feeds (published project versions, the revocation log, key render quotas), with a
 * deadline on every request, and remembers when the hub last answered. `/readyz` reports that age
 * (docs/deploy.md, Kernel nodes): a node whose last exchange is older than
 * `HUB_DEGRADED_AFTER_MS` serves from what it has cached and says so.
 */
import { AppError } from "../http/problem.ts";

/** Deadline of one request to the hub, headers and body, in milliseconds. */
export const HUB_REQUEST_TIMEOUT_MS = 2000;
/** Past this long without an answer from the hub, the link reports `degraded`, in milliseconds. */
export const HUB_DEGRADED_AFTER_MS = 2000;
/** Largest body accepted from the hub (a page of the revocation log, a project version). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The hub's answer to one GET: a JSON body (200), not modified (304), or not found (404). */
export type HubAnswer<T> =
  | { status: 200; body: T; etag: string | null }
  | { status: 304; etag: string | null }
  | { status: 404 };

/** What `/readyz` says about the hub. */
export interface HubLinkStatus {
  /** `ok`: it answered within `HUB_DEGRADED_AFTER_MS`; `degraded`: serving from what is cached. */
  state: "ok" | "degraded";
  /** Milliseconds since the hub last answered (null: never). */
  ageMs: number | null;
}

/** The hub could not be asked (network, deadline, an answer that is not one of ours). */
export class HubUnreachableError extends Error {
  /** Stable code for callers that switch on it. */
  readonly code = "hub_unreachable";
}

/** The problem a render gets when what it needs is not cached and the hub does not answer. */
export function hubUnavailable(what: string, cause?: unknown): AppError {
  return new AppError(
    "service_unavailable",
    `${what} cannot be loaded from the hub right now; retry shortly.`,
    { cause, headers: { "Retry-After": "1" } },
  );
}

/**
 * GETs JSON documents from the hub with a deadline and tracks when it last answered.
 *
 * @example
 * ```ts
 * const hub = new HubLink("https://hub.example");
 * const answer = await hub.getJson<{ head: unknown }>("/api/v1/revocations?after=0");
 * hub.status(); // { state: "ok", ageMs: 3 }
 * ```
 */
export class HubLink {
  readonly #base: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #elapsed: () => number;
  #answeredAt = -Infinity;

  /** `hubUrl` without a trailing slash; `elapsed` is a monotonic clock (tests move it). */
  constructor(
    hubUrl: string,
    options: { fetch?: typeof fetch; timeoutMs?: number; elapsed?: () => number } = {},
  ) {
    this.#base = hubUrl.replace(/\/+$/, "");
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? HUB_REQUEST_TIMEOUT_MS;
    this.#elapsed = options.elapsed ?? (() => performance.now());
  }

  /** The hub's base URL. */
  get url(): string {
    return this.#base;
  }

  /**
   * GETs `path` (with `If-None-Match: etag` when given). Resolves with 200, 304 or 404; anything
   * else (a network failure, the deadline, another status, a body that is not JSON) rejects with
   * `HubUnreachableError`. A 200, 304 or 404 counts as the hub answering.
   */
  async getJson<T>(path: string, etag?: string | null): Promise<HubAnswer<T>> {
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let res: Response;
    try {
      res = await this.#fetch(`${this.#base}${path}`, {
        headers: { accept: "application/json", ...(etag ? { "if-none-match": etag } : {}) },
        // The hub's feeds never redirect; following one could point the node at another store.
        redirect: "manual",
        signal,
      });
    } catch (err) {
      throw new HubUnreachableError(`the hub did not answer GET ${path}`, { cause: err });
    }
    try {
      if (res.status === 304 || res.status === 404) {
        await res.body?.cancel();
        this.#answered();
        return res.status === 304
          ? { status: 304, etag: res.headers.get("etag") }
          : { status: 404 };
      }
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new HubUnreachableError(`the hub answered GET ${path} with HTTP ${res.status}`);
      }
      const length = Number(res.headers.get("content-length") ?? 0);
      if (length > MAX_BODY_BYTES) {
        await res.body?.cancel();
        throw new HubUnreachableError(`the hub's answer to GET ${path} is too large`);
      }
      const body = await res.json() as T;
      this.#answered();
      return { status: 200, body, etag: res.headers.get("etag") };
    } catch (err) {
      if (err instanceof HubUnreachableError) throw err;
      throw new HubUnreachableError(`the hub's answer to GET ${path} was cut short`, {
        cause: err,
      });
    }
  }

  /** Whether the hub answered lately, and how long ago. */
  status(): HubLinkStatus {
    const age = this.#elapsed() - this.#answeredAt;
    return {
      state: age <= HUB_DEGRADED_AFTER_MS ? "ok" : "degraded",
      ageMs: Number.isFinite(age) ? Math.round(age) : null,
    };
  }

  #answered(): void {
    this.#answeredAt = Math.max(this.#answeredAt, this.#elapsed());
  }
}
