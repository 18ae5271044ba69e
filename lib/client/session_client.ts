/**
 * The session-token side of the client library (spec sections 3 and 4.3): where the render
 * service's `sv1.` token comes from, and its status as a signal a UI can show.
 *
 * - Browser flow (`keyId` + `projectKey`): the client mints from the hub, proving itself only by
 *   the browser's `Origin`, and refreshes before expiry. One mint at a time, shared by every caller.
 * - Server flow (`sessionToken`): the partner's backend minted the token; the client never mints,
 *   and tells the partner (callback and `tokenexpired` event) when the token runs out.
 *
 * A revoked or unknown key (`key_revoked`, `unknown_key`) ends the browser flow: the refusal is
 * kept and every later `getToken()` or refresh answers it without another request, so a page whose
 * key was revoked does not keep asking (each ask would count as a refused mint).
 *
 * Status during a background refresh. The spec lists `loading` as "first mount, or a refresh in
 * progress". We show `loading` only while there is no usable token: on first mount, and when a
 * refresh happens because the token has expired (a sleeping laptop, a `token_expired` answer).
 * A scheduled refresh runs while the old token still has minutes to live, so the status stays
 * `ready` with the old token until the new one replaces it: a UI that disabled its form or drew a
 * spinner on `loading` would otherwise flicker every refresh although rendering never stopped.
 * UIs that want to show the background work can watch `refreshing`.
 *
 * Clock skew. `expiresAt` is the hub's clock; a browser's clock may be minutes off. The refresh is
 * scheduled on the local clock from the token's remaining lifetime as the hub measured it:
 * `expiresAt` minus the hub's "now", read from the mint response's `Date` header (exposed by the
 * hub's CORS policy), else from the token's `iat` (read without verification — only to schedule).
 * See `refreshDelayMs` for when the refresh happens.
 *
 * Runs in browsers: no Deno APIs here.
 */

import { type ReadonlySignal, type Signal, signal } from "@preact/signals-core";
import { type Clock, systemClock, type TimerHandle } from "./clock.ts";
import { isRecord, MintError, networkError, readProblem } from "./problem.ts";
import {
  backoffDelay,
  DEFAULT_RETRY,
  FINAL_MINT_CODES,
  isRetryableStatus,
  type RetryOptions,
} from "./retry_policy.ts";
import { readTokenPartner, readTokenTimes } from "./token_payload.ts";
import { mintInit, mintUrl as mintUrlOf } from "./mint_request.ts";
import { responseJson } from "./prefetch.ts";

/** The session-token status a UI shows (spec 3, `tokenStatus`). */
export type SessionStatus =
  | { state: "loading" }
  | { state: "ready"; token: string; expiresAt: number }
  | { state: "error"; error: string; code?: string }
  | { state: "provided"; token: string };

/** Which way the client gets its tokens. */
export type SessionFlow = "browser" | "server";

export { DEFAULT_HUB_BASE_URL, MINT_PATH } from "./mint_request.ts";

/** Options shared by both flows. */
interface CommonOptions {
  /** Time and timers (default: the system clock). */
  clock?: Clock;
}

/** Browser flow: mint with the publishable keyId; the browser's `Origin` is the proof. */
export interface BrowserFlowOptions extends CommonOptions {
  /** The publishable `<keyId>` half of the partner key. */
  keyId: string;
  /** The project slug; sent to the hub as `projectId`. */
  projectKey: string;
  /** The hub's base URL (default `DEFAULT_HUB_BASE_URL`). */
  hubBaseUrl?: string;
  /** The `fetch` to mint with (default the global one). */
  fetch?: typeof fetch;
  /** Retry policy for network errors, 429 and 5xx (never for other 4xx). */
  retry?: Partial<RetryOptions>;
  /** Random numbers in [0, 1) for backoff jitter (default `Math.random`). */
  random?: () => number;
  /** Start minting at once (default true); false waits for the first `getToken()`. */
  mintOnCreate?: boolean;
  /**
   * The mint path on the hub (default `MINT_PATH`). The hub's hosted configurator mints through
   * its own endpoint (see docs/embedding.md); partners keep the default.
   */
  mintPath?: string;
  /** Extra string members sent in the mint body (the hosted configurator's `parentOrigin`). */
  mintExtras?: Record<string, string>;
}

/** Server flow: the partner's backend minted the token and hands over new ones. */
export interface ServerFlowOptions extends CommonOptions {
  /** The `sv1.` token from the partner's backend. */
  sessionToken: string;
  /** Called once per token when it expires, so the backend can hand over a new one. */
  onTokenExpired?: (detail: TokenExpiredDetail) => void;
}

/** How a `SessionClient` gets its tokens. */
export type SessionClientOptions = BrowserFlowOptions | ServerFlowOptions;

/** What `onTokenExpired` and the `tokenexpired` event report. */
export interface TokenExpiredDetail {
  /** The token that expired. */
  token: string;
  /** `exp`: its expiry time passed; `token_expired`: the render service refused it. */
  reason: "exp" | "token_expired";
}

/** The token held in the browser flow, with its expiry on both clocks. */
interface HeldToken {
  token: string;
  /** The hub's `expiresAt`, Unix seconds on the hub's clock. */
  expiresAt: number;
  /** The same instant on the local clock, in milliseconds. */
  localExpiresAtMs: number;
}

/** A token this close to its (local) expiry is treated as expired: it could lapse in flight. */
const EXPIRY_MARGIN_MS = 5_000;
/** Refresh no sooner than this after a mint, whatever the lifetime (guards against loops). */
const MIN_REFRESH_DELAY_MS = 1_000;

/**
 * When to refresh a token that has `remainingMs` to live: at 80 % of that, or 60 s before expiry,
 * whichever is earlier — but never before half of it, so a short-lived token (a 60 s TTL) is not
 * re-minted the moment it arrives.
 *
 * @example
 * ```ts
 * refreshDelayMs(30 * 60_000); // 24 min (80 %)
 * refreshDelayMs(2 * 60_000);  // 60 s (60 s before expiry; also the 50 % floor)
 * refreshDelayMs(60_000);      // 30 s (the 50 % floor)
 * ```
 */
export function refreshDelayMs(remainingMs: number): number {
  const earliest = Math.min(remainingMs * 0.8, remainingMs - 60_000);
  return Math.max(MIN_REFRESH_DELAY_MS, Math.floor(Math.max(earliest, remainingMs * 0.5)));
}

/**
 * Gets, refreshes and reports the session token of one embedded configurator.
 *
 * @example
 * ```ts
 * const session = new SessionClient({
 *   keyId: "krx3e2ob3vqwigcifec47",
 *   projectKey: "wall-bracket",
 *   hubBaseUrl: "https://hub.example.com",
 * });
 * effect(() => console.log(session.status.value.state)); // "loading", then "ready"
 * const token = await session.getToken();
 * ```
 *
 * @example
 * ```ts
 * const session = new SessionClient({
 *   sessionToken: tokenFromMyBackend,
 *   onTokenExpired: async () => session.setSessionToken(await myBackend.newToken()),
 * });
 * ```
 */
export class SessionClient extends EventTarget {
  /** Which flow this client runs. */
  readonly flow: SessionFlow;
  /** The status to show: `loading` | `ready` | `error` | `provided`. */
  readonly status: ReadonlySignal<SessionStatus>;
  /** True while a mint runs although a usable token is held (a background refresh). */
  readonly refreshing: ReadonlySignal<boolean>;

  readonly #status: Signal<SessionStatus>;
  readonly #refreshing = signal(false);
  readonly #clock: Clock;
  readonly #browser?: Required<Pick<BrowserFlowOptions, "keyId" | "projectKey" | "random">> & {
    mintUrl: string;
    extras: Record<string, string>;
    fetch: typeof fetch;
    retry: RetryOptions;
  };
  readonly #onTokenExpired?: (detail: TokenExpiredDetail) => void;

  #held: HeldToken | undefined;
  #provided: string | undefined;
  #expiredReported = new Set<string>();
  #inflight: Promise<string> | undefined;
  #mintAbort: AbortController | undefined;
  #timer: TimerHandle | undefined;
  #sleeps = new Set<() => void>();
  #skewMs = 0;
  #disposed = false;
  /** A refusal no later mint can change (`key_revoked`, `unknown_key`): answered without asking. */
  #final: MintError | undefined;

  /** Creates the client; in the browser flow it starts the first mint unless `mintOnCreate` is false. */
  constructor(options: SessionClientOptions) {
    super();
    this.#clock = options.clock ?? systemClock;
    if ("sessionToken" in options && options.sessionToken !== undefined) {
      assertToken(options.sessionToken, "sessionToken");
      this.flow = "server";
      this.#provided = options.sessionToken;
      this.#onTokenExpired = options.onTokenExpired;
      this.#status = signal<SessionStatus>({ state: "provided", token: options.sessionToken });
      this.status = this.#status;
      this.refreshing = this.#refreshing;
      this.#scheduleExpiryNotice();
      return;
    }
    const browser = options as BrowserFlowOptions;
    if (typeof browser.keyId !== "string" || browser.keyId === "") {
      throw new TypeError("SessionClient needs a keyId (browser flow) or a sessionToken");
    }
    if (typeof browser.projectKey !== "string" || browser.projectKey === "") {
      throw new TypeError("the browser flow needs a projectKey (sent to the hub as projectId)");
    }
    this.flow = "browser";
    this.#browser = {
      keyId: browser.keyId,
      projectKey: browser.projectKey,
      random: browser.random ?? Math.random,
      mintUrl: mintUrlOf(browser.hubBaseUrl, browser.mintPath),
      extras: { ...browser.mintExtras },
      fetch: browser.fetch ?? globalThis.fetch.bind(globalThis),
      retry: { ...DEFAULT_RETRY, ...browser.retry },
    };
    this.#status = signal<SessionStatus>({ state: "loading" });
    this.status = this.#status;
    this.refreshing = this.#refreshing;
    if (browser.mintOnCreate !== false) this.#mint().catch(() => {/* shown in `status` */});
  }

  /**
   * A token to send now. Browser flow: the held token while it is valid, else the mint in flight,
   * else a new mint; rejects with `MintError` when minting fails. Server flow: the given token.
   */
  getToken(): Promise<string> {
    if (this.#disposed) return Promise.reject(disposedError());
    const now = this.tokenNow();
    return now === undefined ? this.#mint() : Promise.resolve(now);
  }

  /**
   * The token `getToken()` would resolve to without minting, now: the server flow's, or the
   * browser flow's while it is valid; undefined when one must be minted first (then call
   * `getToken()`). Lets a caller send a request in the same task, without a promise turn.
   */
  tokenNow(): string | undefined {
    if (this.#disposed) return undefined;
    if (this.#provided !== undefined) return this.#provided;
    return this.#usable() ? this.#held!.token : undefined;
  }

  /**
   * Browser flow: mints a new token now (sharing a mint already in flight) and resolves to it; the
   * old token stays in use until then. Server flow: rejects — only the partner's backend mints.
   */
  refreshSessionToken(): Promise<string> {
    if (this.#disposed) return Promise.reject(disposedError());
    if (this.flow === "server") {
      return Promise.reject(
        new TypeError(
          "server flow: the partner's backend mints; pass the new token to setSessionToken",
        ),
      );
    }
    return this.#mint();
  }

  /** Server flow: replaces the token (status `provided` with the new one). */
  setSessionToken(token: string): void {
    if (this.flow !== "server") {
      throw new TypeError("setSessionToken is for the server flow; the browser flow mints itself");
    }
    if (this.#disposed) return;
    assertToken(token, "token");
    this.#provided = token;
    this.#status.value = { state: "provided", token };
    this.#scheduleExpiryNotice();
  }

  /**
   * Tells the client the render service answered `token_expired` for `token`. Server flow: the
   * expiry callback and event fire (once per token). Browser flow: the token is dropped, so the
   * next `getToken()` mints (status `loading` until it arrives).
   */
  reportTokenExpired(token: string): void {
    if (this.#disposed) return;
    if (this.flow === "server") {
      if (token === this.#provided) this.#notifyExpired(token, "token_expired");
      return;
    }
    if (this.#held?.token === token) {
      this.#held = undefined;
      if (this.#inflight === undefined) this.#status.value = { state: "loading" };
    }
  }

  /**
   * Whose project the slug means when it is loaded (slugs are unique per partner): the keyId in
   * the browser flow, the token's `partner` claim (unverified) in the server flow.
   */
  get projectScope(): { key?: string; partner?: string } {
    if (this.#browser) return { key: this.#browser.keyId };
    const partner = this.#provided === undefined ? undefined : readTokenPartner(this.#provided);
    return partner === undefined ? {} : { partner };
  }

  /**
   * The hub's clock minus the local clock, in ms, as measured at the last mint (0 before any, and
   * in the server flow).
   */
  get clockSkewMs(): number {
    return this.#skewMs;
  }

  /** When the held token expires on the local clock (ms), or undefined. */
  get localExpiresAtMs(): number | undefined {
    if (this.#provided !== undefined) {
      const { exp } = readTokenTimes(this.#provided);
      return exp === undefined ? undefined : exp * 1000;
    }
    return this.#held?.localExpiresAtMs;
  }

  /** Stops timers and retries and aborts a mint in flight; the client answers nothing after. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#clearTimer();
    this.#mintAbort?.abort();
    for (const cancel of [...this.#sleeps]) cancel();
    this.#sleeps.clear();
    this.#refreshing.value = false;
  }

  #usable(): boolean {
    return this.#held !== undefined &&
      this.#held.localExpiresAtMs - this.#clock.now() > EXPIRY_MARGIN_MS;
  }

  /** The one mint in flight, started if there is none. */
  #mint(): Promise<string> {
    if (this.#final) return Promise.reject(this.#final);
    if (this.#inflight) return this.#inflight;
    if (this.#usable()) this.#refreshing.value = true;
    else this.#status.value = { state: "loading" };
    const run = this.#mintWithRetries().finally(() => {
      if (this.#inflight === run) this.#inflight = undefined;
      this.#refreshing.value = false;
    });
    this.#inflight = run;
    return run;
  }

  async #mintWithRetries(): Promise<string> {
    const { retry, random } = this.#browser!;
    for (let attempt = 1;; attempt++) {
      try {
        return await this.#mintOnce();
      } catch (err) {
        const error = err instanceof MintError ? err : networkError(MintError, err);
        if (this.#disposed) throw disposedError();
        const retryable = !FINAL_MINT_CODES.has(error.code) &&
          (error.code === "network_error" || isRetryableStatus(error.status));
        const tooLong = (error.retryAfterMs ?? 0) > retry.maxRetryAfterMs;
        if (!retryable || tooLong || attempt >= retry.maxAttempts) {
          if (FINAL_MINT_CODES.has(error.code)) this.#final = error;
          this.#status.value = { state: "error", error: error.detail, code: error.code };
          throw error;
        }
        await this.#sleep(backoffDelay(attempt, retry, random, error.retryAfterMs));
      }
    }
  }

  async #mintOnce(): Promise<string> {
    const { mintUrl, keyId, projectKey, fetch, extras } = this.#browser!;
    const startedAt = this.#clock.now();
    const abort = new AbortController();
    this.#mintAbort = abort;
    let res: Response;
    try {
      res = await fetch(mintUrl, { ...mintInit(keyId, projectKey, extras), signal: abort.signal });
    } catch (err) {
      throw networkError(MintError, err);
    }
    if (!res.ok) throw await readProblem(res, MintError, this.#clock.now());
    let body: unknown;
    try {
      body = await responseJson(res);
    } catch (err) {
      throw invalidResponse("the mint response is not JSON", res.status, err);
    }
    if (
      !isRecord(body) || typeof body.token !== "string" || !body.token.startsWith("sv1.") ||
      typeof body.expiresAt !== "number" || !Number.isFinite(body.expiresAt)
    ) {
      throw invalidResponse("the mint response lacks a token or expiresAt", res.status);
    }
    if (this.#disposed) throw disposedError();
    this.#accept(body.token, body.expiresAt, startedAt, res.headers.get("date"));
    return body.token;
  }

  /** Stores a minted token and schedules its refresh on the local clock, corrected for skew. */
  #accept(token: string, expiresAt: number, startedAt: number, date: string | null): void {
    // The hub's "now" when it answered: the Date header, else the token's iat. Both have 1 s
    // resolution (truncated), and the request's start is used as the local "now", so the
    // estimate errs towards refreshing early; one more second covers the truncation.
    const dateMs = Date.parse(date ?? "");
    const iat = readTokenTimes(token).iat;
    const hubNowMs = !Number.isNaN(dateMs) ? dateMs : iat !== undefined ? iat * 1000 : undefined;
    this.#skewMs = hubNowMs === undefined ? 0 : hubNowMs - startedAt;
    const localExpiresAtMs = expiresAt * 1000 - this.#skewMs - 1000;
    this.#held = { token, expiresAt, localExpiresAtMs };
    this.#status.value = { state: "ready", token, expiresAt };
    this.#clearTimer();
    const remaining = localExpiresAtMs - startedAt;
    const at = startedAt + refreshDelayMs(remaining);
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#mint().catch(() => {/* shown in `status` */});
    }, at - this.#clock.now());
  }

  /** Server flow: a timer on the token's `exp` (local clock; nothing tells us the hub's). */
  #scheduleExpiryNotice(): void {
    this.#clearTimer();
    const token = this.#provided!;
    const { exp } = readTokenTimes(token);
    if (exp === undefined) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.#provided === token) this.#notifyExpired(token, "exp");
    }, exp * 1000 - this.#clock.now());
  }

  #notifyExpired(token: string, reason: TokenExpiredDetail["reason"]): void {
    if (this.#expiredReported.has(token)) return;
    // Bounded: only the current token's entry matters.
    this.#expiredReported.clear();
    this.#expiredReported.add(token);
    const detail: TokenExpiredDetail = { token, reason };
    try {
      this.#onTokenExpired?.(detail);
    } finally {
      this.dispatchEvent(new CustomEvent<TokenExpiredDetail>("tokenexpired", { detail }));
    }
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Waits `ms` on the client's clock; rejects when the client is disposed meanwhile. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const cancel = () => {
        this.#clock.clearTimeout(handle);
        this.#sleeps.delete(cancel);
        reject(disposedError());
      };
      const handle = this.#clock.setTimeout(() => {
        this.#sleeps.delete(cancel);
        resolve();
      }, ms);
      this.#sleeps.add(cancel);
    });
  }
}

function assertToken(token: unknown, name: string): asserts token is string {
  if (typeof token !== "string" || !token.startsWith("sv1.")) {
    throw new TypeError(`${name} must be an sv1. session token`);
  }
}

function disposedError(): MintError {
  return new MintError({ code: "disposed", status: 0, detail: "The session client was disposed." });
}

function invalidResponse(detail: string, status: number, cause?: unknown): MintError {
  return new MintError({ code: "invalid_response", status, detail, cause });
}
