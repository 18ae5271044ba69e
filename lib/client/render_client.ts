/**
 * The render side of the client library: parameter values in, a drawable scene out.
 *
 * `render(values)` substitutes the values into the project's template with the same `substitute`
 * the kernel runs, and posts the finished DAG to `{baseUrl}/v1/kernels/<kernel>/render` with the
 * session token. Rapid changes (a slider drag) are coalesced: at most one request is in flight and
 * one waits; a newer call replaces the waiting one, and the one in flight is aborted because its
 * answer is already stale ("latest wins"). Every caller's promise settles with the outcome of the
 * request that superseded it, so an `await render(v)` in an input handler never sees a stale scene
 * and never has to tell "superseded" apart from a failure; `result.values` says what was drawn.
 *
 * Budget note: the render service spends one unit of the token's budget when a request passes its
 * checks, before evaluation, so an aborted request that reached the server has spent its unit.
 * Aborting buys latency for the latest values, not budget; a form that fires on every pointer move
 * should throttle, or pass `abortSuperseded: false` to let the request in flight finish (its
 * meshes still land in the geometry cache) while only the newest waiting values are sent next.
 *
 * Lost answers: a render whose connection failed (refused, reset, the body cut off) or that a proxy
 * answered itself (a 502/503/504 without a problem body: its upstream died or none was up) is sent
 * once more, after a 0–250 ms jittered pause. Every request of one render carries the same
 * `Idempotency-Key` (128 random bits), so the retry — on whichever node — never spends a second
 * unit (docs/api.md, Idempotent retries). Problem responses are the service's decisions and are not
 * retried this way.
 *
 * `token_expired`: in the browser flow the session mints once and the request is retried
 * transparently; in the server flow the session's expiry callback fires and the error surfaces.
 * `budget_exhausted` is never retried by minting: the budget is the partner's cap on one token.
 *
 * Runs in browsers: no Deno APIs here.
 */

import { type ReadonlySignal, type Signal, signal } from "@preact/signals-core";
import { DagError } from "../dag/dag_errors.ts";
import { substitute } from "../dag/substitute.ts";
import { completeParameterValues, type ParameterSchema } from "../dag/parameter_schema.ts";
import type { Dag } from "../dag/dag_types.ts";
import { GeometryCache } from "./geometry_cache.ts";
import {
  networkError,
  ProblemError,
  readProblem,
  RenderError,
  renderErrorFromDag,
} from "./problem.ts";
import { type LoadedProject, ProjectLoader, type ProjectScope } from "./project_loader.ts";
import { assembleResult, type RenderResult } from "./render_result.ts";
import { decodeRenderBody } from "./render_body.ts";
import { RENDER_BINARY_TYPE } from "../dag/render_binary.ts";
import type { SessionClient } from "./session_client.ts";

/**
 * What the render client needs from the session (a `SessionClient` has it all); `projectScope`
 * names the partner whose project `loadProject` reads when no scope is given.
 */
export type RenderSession =
  & Pick<SessionClient, "flow" | "getToken" | "refreshSessionToken" | "reportTokenExpired">
  & Partial<Pick<SessionClient, "projectScope" | "tokenNow">>;

/** What a viewer shows: the request status, the last good scene, and the budget left. */
export type RenderState =
  | { status: "idle"; result: RenderResult | null; budgetRemaining: BudgetRemaining }
  | { status: "rendering"; result: RenderResult | null; budgetRemaining: BudgetRemaining }
  | { status: "ready"; result: RenderResult; budgetRemaining: BudgetRemaining }
  | {
    status: "error";
    error: RenderError;
    result: RenderResult | null;
    budgetRemaining: BudgetRemaining;
  };

/** Renders left on the token: a number, null for unlimited, undefined before the first answer. */
export type BudgetRemaining = number | null | undefined;

/** Options of one `render` call. */
export interface RenderOptions {
  /**
   * The request leaves once this settles (resolved or rejected), not at once: a page that already
   * shows the change (a colour preview, lib/client/color_preview.ts) sends it after the frame that
   * draws it (`afterNextPaint`), so the request's work does not share that frame. The render is
   * queued at once all the same: the state says `rendering`, newer values supersede it, and
   * `settledResult` waits for its answer.
   */
  sendAfter?: Promise<unknown>;
}

/** Options of a `RenderClient`. */
export interface RenderClientOptions {
  /** The render service's base URL (also serves `/api/v1/projects`). */
  baseUrl: string;
  /** Where tokens come from. */
  session: RenderSession;
  /** The `fetch` to use (default the global one). */
  fetch?: typeof fetch;
  /** The kernel to render with (default `manifold`). */
  kernel?: string;
  /** The geometry cache (default a new 64 MiB one). */
  geometryCache?: GeometryCache;
  /** Most mesh hashes sent as `have` (default 256, at most 1000): the most recently used ones. */
  maxHave?: number;
  /** Abort the request in flight when newer values arrive (default true). */
  abortSuperseded?: boolean;
  /** Milliseconds since the epoch (default `Date.now`), for reading `Retry-After` dates. */
  now?: () => number;
  /**
   * Runs python-mode designs (a `PythonRuntime`): with it, `render` also renders python-mode
   * projects by running their design in the browser first. Without it they reject with
   * `unsupported_mode`.
   */
  design?: DesignRunner;
}

/** What turns a python-mode project's source and values into a DAG (`PythonRuntime` does). */
export interface DesignRunner {
  run(source: string, values: Record<string, unknown>): Promise<Dag>;
}

/** Values waiting for the design runner, with the callers that wait for their scene. */
interface DesignJob {
  values: Record<string, unknown>;
  /** The design and project version the values were given for. */
  source: string;
  version: number;
  waiters: Waiter[];
}

interface Waiter {
  resolve: (result: RenderResult) => void;
  reject: (error: RenderError) => void;
}

interface Job {
  values: Record<string, unknown>;
  dag: Dag;
  version: number;
  waiters: Waiter[];
  abort: AbortController;
  superseded: boolean;
  /** Sent with every request of this render, so a retry is not paid twice. */
  idempotencyKey: string;
  /** The request waits for this (`RenderOptions.sendAfter`). */
  sendAfter?: Promise<unknown>;
  /** Its waiters have been answered (a caller that joins now would wait forever). */
  settled?: boolean;
}

/** Whether two value sets have the same keys and, by `Object.is`, the same values. */
function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length &&
    keys.every((k) => Object.hasOwn(b, k) && Object.is(a[k], b[k]));
}

const MAX_HAVE = 1000;

/** Longest pause before the one retry of a lost answer, in ms (full jitter below it). */
const RETRY_PAUSE_MS = 250;

/** Statuses a proxy answers by itself when its upstream failed or none was up. */
const PROXY_FAILURE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** Resolves when `promise` settles or `signal` aborts, whichever comes first. */
function untilSettledOrAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    promise.then(done, done);
  });
}

/** A new idempotency key: 128 random bits as 32 hex digits. */
function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Renders a project's parameter values into scenes.
 *
 * @example
 * ```ts
 * const renderer = new RenderClient({ baseUrl: "https://kernel.example.com", session });
 * await renderer.loadProject("wall-bracket");
 * effect(() => {
 *   const state = renderer.state.value;
 *   if (state.status === "ready") viewer.show(state.result.parts);
 * });
 * renderer.render({ width: 120 }).catch(() => {}); // errors also land in `state`
 * ```
 */
export class RenderClient {
  /** The render status, the last good result and the remaining budget. */
  readonly state: ReadonlySignal<RenderState>;
  /** Decoded meshes by hash; its keys are sent as `have`. */
  readonly geometry: GeometryCache;

  readonly #state: Signal<RenderState>;
  readonly #baseUrl: string;
  readonly #session: RenderSession;
  readonly #fetch: typeof fetch;
  readonly #kernel: string;
  readonly #maxHave: number;
  readonly #abortSuperseded: boolean;
  readonly #now: () => number;
  readonly #projects: ProjectLoader;
  readonly #design: DesignRunner | undefined;
  #designPending: DesignJob | undefined;
  #designRunning = false;
  #project: LoadedProject | undefined;
  #running: Job | undefined;
  #pending: Job | undefined;
  /** The DAG and version of the scene last shown (what an AR ticket exports). */
  #shown: { dag: Dag; version: number } | undefined;
  #pumpQueued = false;
  #disposed = false;

  /** A client for the render service at `baseUrl`, with tokens from `session`. */
  constructor(options: RenderClientOptions) {
    if (typeof options.baseUrl !== "string" || options.baseUrl === "") {
      throw new TypeError("RenderClient needs a baseUrl");
    }
    if (!options.session) throw new TypeError("RenderClient needs a session");
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#session = options.session;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#kernel = options.kernel ?? "manifold";
    this.#maxHave = Math.max(0, Math.min(MAX_HAVE, options.maxHave ?? 256));
    this.#abortSuperseded = options.abortSuperseded ?? true;
    this.#now = options.now ?? Date.now;
    this.#design = options.design;
    this.geometry = options.geometryCache ?? new GeometryCache();
    this.#projects = new ProjectLoader({
      baseUrl: this.#baseUrl,
      fetch: this.#fetch,
      now: this.#now,
    });
    this.#state = signal<RenderState>({
      status: "idle",
      result: null,
      budgetRemaining: undefined,
    });
    this.state = this.#state;
  }

  /** The project renders use (after `loadProject`). */
  get project(): LoadedProject | undefined {
    return this.#project;
  }

  /**
   * Loads the project's current version (or `version`) and makes it the one `render` uses.
   * `scope` names the partner (slugs are unique per partner): `{ key: keyId }` or `{ partner }`;
   * by default the session's (its keyId, or its token's `partner` claim). Revalidates with the
   * ETag of an earlier answer. Rejects with `RenderError`.
   */
  async loadProject(
    slug: string,
    version?: number,
    scope?: ProjectScope,
  ): Promise<LoadedProject> {
    const project = await this.#projects.load(
      slug,
      version,
      scope ?? this.#session.projectScope,
    );
    if (!this.#disposed) this.#project = project;
    return project;
  }

  /**
   * Renders `values` (parameter name → value; missing ones take their defaults). Resolves with the
   * scene for these values or for newer values that superseded them; rejects with `RenderError`.
   * Invalid values reject at once (`invalid_parameters` with a `pointer`), without a request.
   * `options.sendAfter` holds the request back (`RenderOptions`; python-mode designs ignore it).
   */
  render(values: Record<string, unknown>, options: RenderOptions = {}): Promise<RenderResult> {
    if (this.#disposed) return Promise.reject(clientError("disposed", "The client was disposed."));
    const project = this.#project;
    if (!project) {
      return Promise.reject(clientError("no_project", "Call loadProject() before render()."));
    }
    if (project.mode === "python" && this.#design && project.source !== null && project.schema) {
      return this.#renderDesign(project.source, project.schema, project.version, values);
    }
    if (project.template === null || project.schema === null) {
      return Promise.reject(
        clientError(
          "unsupported_mode",
          project.mode === "python"
            ? "A python-mode project renders with a design runner (RenderClientOptions.design)."
            : `Project mode "${project.mode}" has no DAG template.`,
        ),
      );
    }
    let dag: Dag;
    try {
      dag = substitute(project.template, project.schema, values);
    } catch (err) {
      const error = valuesError(err);
      this.#setError(error);
      return Promise.reject(error);
    }
    // The very values of the newest render still on its way (a page that asks twice for one
    // configuration; the configurator's first render, asked for as its project arrives and again
    // as its form mounts): that render answers this call too, without a second request.
    const latest = this.#pending ?? this.#running;
    if (
      latest && !latest.superseded && !latest.settled && !options.sendAfter &&
      latest.version === project.version && sameValues(latest.values, values)
    ) {
      return new Promise((resolve, reject) => latest.waiters.push({ resolve, reject }));
    }
    return this.#enqueue(values, dag, project.version, options.sendAfter);
  }

  /**
   * Renders a finished DAG made outside the template path: a python-mode project's DAG from the
   * in-browser Python runtime (`lib/client/python_runtime.ts`). Same queueing, superseding and
   * state as `render`; `values` are only recorded with the result.
   */
  renderDag(dag: Dag, values: Record<string, unknown> = {}): Promise<RenderResult> {
    if (this.#disposed) return Promise.reject(clientError("disposed", "The client was disposed."));
    const project = this.#project;
    if (!project) {
      return Promise.reject(clientError("no_project", "Call loadProject() before renderDag()."));
    }
    return this.#enqueue(values, dag, project.version);
  }

  /**
   * A python-mode render: the values are checked, then the design runs (one run at a time; values
   * that arrive meanwhile replace the waiting ones, and a run whose values were superseded is not
   * rendered), then its DAG is queued like any other. Callers settle as with `render`.
   */
  #renderDesign(
    source: string,
    schema: ParameterSchema,
    version: number,
    values: Record<string, unknown>,
  ): Promise<RenderResult> {
    let complete: Record<string, unknown>;
    try {
      complete = completeParameterValues(schema, values);
    } catch (err) {
      const error = valuesError(err);
      this.#setError(error);
      return Promise.reject(error);
    }
    return new Promise<RenderResult>((resolve, reject) => {
      const waiters = this.#designPending?.waiters ?? [];
      waiters.push({ resolve, reject });
      this.#designPending = { values: complete, source, version, waiters };
      const { result, budgetRemaining } = this.#state.value;
      this.#state.value = { status: "rendering", result, budgetRemaining };
      if (!this.#designRunning) void this.#designPump();
    });
  }

  async #designPump(): Promise<void> {
    this.#designRunning = true;
    try {
      while (this.#designPending && !this.#disposed) {
        const job = this.#designPending;
        this.#designPending = undefined;
        let dag: Dag | undefined;
        let failure: RenderError | undefined;
        try {
          dag = await this.#design!.run(job.source, job.values);
        } catch (err) {
          failure = designError(err);
        }
        // Newer values arrived while the design ran: their outcome settles these callers too.
        // (Read through a cast: TypeScript keeps the narrowing from before the await.)
        const newer = this.#designPending as DesignJob | undefined;
        if (newer) {
          newer.waiters.unshift(...job.waiters);
          continue;
        }
        if (this.#disposed) {
          const error = clientError("disposed", "The client was disposed.");
          for (const waiter of job.waiters) waiter.reject(error);
          break;
        }
        if (failure) {
          this.#setError(failure);
          for (const waiter of job.waiters) waiter.reject(failure);
          continue;
        }
        this.#enqueue(job.values, dag!, job.version).then(
          (result) => job.waiters.forEach((waiter) => waiter.resolve(result)),
          (error: RenderError) => job.waiters.forEach((waiter) => waiter.reject(error)),
        );
      }
    } finally {
      this.#designRunning = false;
    }
  }

  #enqueue(
    values: Record<string, unknown>,
    dag: Dag,
    version: number,
    sendAfter?: Promise<unknown>,
  ): Promise<RenderResult> {
    return new Promise<RenderResult>((resolve, reject) => {
      const job: Job = {
        values: { ...values },
        dag,
        version,
        waiters: [{ resolve, reject }],
        abort: new AbortController(),
        superseded: false,
        idempotencyKey: newIdempotencyKey(),
        sendAfter,
      };
      // Older waiters first, so they settle in call order.
      if (this.#pending) job.waiters.unshift(...this.#pending.waiters);
      const running = this.#running;
      if (running && !running.superseded) {
        running.superseded = true;
        job.waiters.unshift(...running.waiters);
        running.waiters = [];
        if (this.#abortSuperseded) running.abort.abort();
      }
      this.#pending = job;
      // The pump is queued before the state changes, so it runs before the re-renders that state
      // change queues (Preact and React flush in a later microtask or task): the request is sent
      // first, and the page re-renders while it is on its way. The state still says "rendering"
      // from this call on (settledResult, busy indicators).
      this.#queuePump();
      const { result, budgetRemaining } = this.#state.value;
      this.#state.value = { status: "rendering", result, budgetRemaining };
    });
  }

  /**
   * An AR ticket for the scene last shown (docs/security.md, AR tickets): the kernel exports its
   * GLB with this session's token (one unit of budget; the key must allow GLB for session tokens)
   * and answers a URL that Scene Viewer fetches without a token for a few minutes. An expired
   * token is minted again once in the browser flow. Rejects with `RenderError` (`no_scene` before
   * the first render; the service's problem codes, such as `export_format_not_allowed`).
   */
  async arTicket(): Promise<{ url: string; expiresAt: number }> {
    const shown = this.#shown;
    if (!shown) throw clientError("no_scene", "Nothing has been rendered yet.");
    const url = `${this.#baseUrl}/v1/kernels/${encodeURIComponent(this.#kernel)}/ar-ticket`;
    const idempotencyKey = newIdempotencyKey();
    let token = await this.#token(() => this.#session.getToken());
    for (let expired = false;;) {
      let res: Response;
      try {
        res = await this.#fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${token}`,
            "idempotency-key": idempotencyKey,
          },
          body: JSON.stringify({ dag: shown.dag, version: shown.version }),
          credentials: "omit",
        });
      } catch (err) {
        throw networkError(RenderError, err);
      }
      if (res.ok) {
        const remaining = res.headers.get("x-render-remaining");
        if (remaining !== null) this.#setBudget(Number(remaining));
        const body = await res.json().catch(() => null) as { url?: unknown; expiresAt?: unknown };
        if (typeof body?.url !== "string" || typeof body.expiresAt !== "number") {
          throw clientError("invalid_response", "The AR ticket answer has no url.", res.status);
        }
        return { url: body.url, expiresAt: body.expiresAt };
      }
      const error = await readProblem(res, RenderError, this.#now());
      if (error.code === "token_expired") {
        this.#session.reportTokenExpired(token);
        if (this.#session.flow === "browser" && !expired) {
          expired = true;
          token = await this.#token(() => this.#session.refreshSessionToken());
          continue;
        }
      }
      if (error.code === "budget_exhausted") this.#setBudget(0);
      throw error;
    }
  }

  /** Aborts the request in flight, rejects waiting renders with `disposed`, and goes `idle`. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const error = clientError("disposed", "The client was disposed.");
    for (const job of [this.#running, this.#pending]) {
      if (!job) continue;
      job.abort.abort();
      for (const waiter of job.waiters) waiter.reject(error);
      job.waiters = [];
      job.superseded = true;
    }
    this.#pending = undefined;
    for (const waiter of this.#designPending?.waiters ?? []) waiter.reject(error);
    this.#designPending = undefined;
    const { result, budgetRemaining } = this.#state.value;
    this.#state.value = { status: "idle", result, budgetRemaining };
  }

  /** Starts the waiting job after the current task, so a burst of calls sends one request. */
  #queuePump(): void {
    if (this.#pumpQueued) return;
    this.#pumpQueued = true;
    queueMicrotask(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#running || !this.#pending || this.#disposed) return;
    const job = this.#pending;
    this.#pending = undefined;
    this.#running = job;
    this.#execute(job).then(
      (result) => {
        if (job.superseded) return;
        job.settled = true;
        this.#shown = { dag: job.dag, version: job.version };
        this.#state.value = {
          // Newer values are still in the design runner: this scene is not the last word.
          status: this.#designRunning ? "rendering" : "ready",
          result,
          budgetRemaining: result.budgetRemaining,
        };
        for (const waiter of job.waiters) waiter.resolve(result);
      },
      (err: unknown) => {
        if (job.superseded) return;
        job.settled = true;
        const error = err instanceof RenderError ? err : asRenderError(err);
        this.#setError(error);
        for (const waiter of job.waiters) waiter.reject(error);
      },
    ).finally(() => {
      this.#running = undefined;
      this.#pump();
    });
  }

  async #execute(job: Job): Promise<RenderResult> {
    // Held back until the page's frame is drawn, or until newer values supersede it.
    if (job.sendAfter) await untilSettledOrAborted(job.sendAfter, job.abort.signal);
    // A held token is used in this task: the request then leaves before the page's re-render of
    // the "rendering" state (queued after this job's pump), not after it.
    let token = this.#session.tokenNow?.() ?? await this.#token(() => this.#session.getToken());
    let retriedExpired = false;
    let retriedLost = false;
    const notHeld = new Set<string>();
    for (;;) {
      // Superseded before it was sent: the answer would be stale, so it is not worth a unit.
      if (job.superseded || job.abort.signal.aborted) {
        throw clientError("aborted", "Superseded by newer values.");
      }
      const have = this.geometry.keys().filter((hash) => !notHeld.has(hash))
        .slice(0, this.#maxHave);
      let res: Response;
      try {
        res = await this.#post(job, token, have);
      } catch (err) {
        if (retriedLost || !isLost(err)) throw err;
        retriedLost = true;
        await this.#pauseBeforeRetry(job);
        continue;
      }
      if (res.ok) {
        let bytes: Uint8Array;
        try {
          bytes = new Uint8Array(await res.arrayBuffer());
        } catch (err) {
          if (job.abort.signal.aborted) {
            throw clientError("aborted", "Superseded by newer values.", 0, err);
          }
          // The answer was cut off: the render was paid for; its retry replays the payment.
          if (!retriedLost) {
            retriedLost = true;
            await this.#pauseBeforeRetry(job);
            continue;
          }
          throw networkError(RenderError, err);
        }
        let assembled;
        try {
          assembled = assembleResult(await decodeRenderBody(bytes), this.geometry, job.values);
        } catch (err) {
          throw clientError("invalid_response", String(err), res.status, err);
        }
        if (assembled.ok) return assembled.result;
        // The cache lost meshes it had claimed (cleared meanwhile): ask once more without them.
        if (assembled.missing.every((hash) => notHeld.has(hash))) {
          throw clientError("invalid_response", "The render answer lacks a mesh of its scene.");
        }
        for (const hash of assembled.missing) notHeld.add(hash);
        continue;
      }
      const error = await readProblem(res, RenderError, this.#now());
      // A proxy's own failure page: the node behind it died or none was up; another may answer.
      if (
        !retriedLost && error.code === "http_error" && PROXY_FAILURE_STATUSES.has(error.status)
      ) {
        retriedLost = true;
        await this.#pauseBeforeRetry(job);
        continue;
      }
      if (error.code === "token_expired") {
        this.#session.reportTokenExpired(token);
        if (this.#session.flow === "browser" && !retriedExpired) {
          retriedExpired = true;
          token = await this.#token(() => this.#session.refreshSessionToken());
          continue;
        }
      }
      if (error.code === "budget_exhausted") this.#setBudget(0);
      throw error;
    }
  }

  async #post(job: Job, token: string, have: string[]): Promise<Response> {
    const url = `${this.#baseUrl}/v1/kernels/${encodeURIComponent(this.#kernel)}/render`;
    try {
      return await this.#fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          // The binary form: the same members, meshes as bytes (docs/api.md, render).
          accept: `${RENDER_BINARY_TYPE}, application/json;q=0.5`,
          authorization: `Bearer ${token}`,
          "idempotency-key": job.idempotencyKey,
        },
        body: JSON.stringify({ dag: job.dag, version: job.version, have }),
        signal: job.abort.signal,
        credentials: "omit",
      });
    } catch (err) {
      if (job.abort.signal.aborted) {
        throw clientError("aborted", "Superseded by newer values.", 0, err);
      }
      throw networkError(RenderError, err);
    }
  }

  /** Waits 0–250 ms (full jitter) before the one retry of a lost answer; rejects when superseded. */
  #pauseBeforeRetry(job: Job): Promise<void> {
    const signal = job.abort.signal;
    return new Promise((resolve, reject) => {
      const aborted = () => {
        clearTimeout(timer);
        reject(clientError("aborted", "Superseded by newer values."));
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", aborted);
        resolve();
      }, Math.random() * RETRY_PAUSE_MS);
      if (signal.aborted) aborted();
      else signal.addEventListener("abort", aborted, { once: true });
    });
  }

  /** A token from the session; a mint failure becomes a `RenderError` with the mint's code. */
  async #token(get: () => Promise<string>): Promise<string> {
    try {
      return await get();
    } catch (err) {
      throw asRenderError(err);
    }
  }

  #setError(error: RenderError): void {
    const { result, budgetRemaining } = this.#state.value;
    this.#state.value = { status: "error", error, result, budgetRemaining };
  }

  #setBudget(budgetRemaining: BudgetRemaining): void {
    this.#state.value = { ...this.#state.value, budgetRemaining };
  }
}

/** Whether `err` (from `#post`) is a connection failure, not an abort: worth one more try. */
function isLost(err: unknown): boolean {
  return err instanceof RenderError && err.code === "network_error";
}

/** A refused value (`DagError`) as a `RenderError` with its pointer and reason. */
function valuesError(err: unknown): RenderError {
  return err instanceof DagError
    ? renderErrorFromDag(err)
    : clientError("invalid_parameters", String(err), 0, err);
}

/** A design runner's failure (`PythonRuntimeError`: `design_error`, …) as a `RenderError`. */
function designError(err: unknown): RenderError {
  if (err instanceof RenderError) return err;
  const code = typeof (err as { code?: unknown })?.code === "string"
    ? (err as { code: string }).code
    : "design_error";
  const pointer = (err as { pointer?: unknown })?.pointer;
  return new RenderError({
    code,
    status: 0,
    detail: err instanceof Error ? err.message : String(err),
    pointer: typeof pointer === "string" ? pointer : undefined,
    cause: err,
  });
}

function clientError(
  code: string,
  detail: string,
  status = 0,
  cause?: unknown,
): RenderError {
  return new RenderError({ code, status, detail, cause });
}

/** Any failure as a `RenderError`, keeping a problem's code and members (mint errors included). */
function asRenderError(err: unknown): RenderError {
  if (err instanceof RenderError) return err;
  if (err instanceof ProblemError) {
    return new RenderError({
      code: err.code,
      status: err.status,
      detail: err.detail,
      pointer: err.pointer,
      reason: err.reason,
      retryAfterMs: err.retryAfterMs,
      instance: err.instance,
      body: err.body,
      cause: err,
    });
  }
  return clientError("internal_error", err instanceof Error ? err.message : String(err), 0, err);
}
