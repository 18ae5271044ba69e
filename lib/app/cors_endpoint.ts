/**
 * One request shape for the endpoints a partner's page calls cross-origin (mint, render, signed
 * configurations), as Hono keeps one `cors()` middleware instead of a copy per route. The route
 * declares its CORS policy, who may preflight, its handler, who may read a problem and what it
 * counts; this helper answers the preflight, runs the handler inside one error boundary (a typed
 * problem, the request log's code, an error log line for an internal error) and puts the CORS
 * headers (lib/http/cors.ts) on every answer, success and problem alike.
 *
 * A request without an Origin, or from the opaque origin `null`, never passes a preflight and never
 * reads an answer; the route's hooks are asked about real origins only.
 */
import { type CorsPolicy, preflightResponse, withCors } from "../http/cors.ts";
import { readRequestOrigin } from "../http/origin.ts";
import { type AppError, problemResponse, toAppError } from "../http/problem.ts";
import type { Handler, Handlers, Method, RouteContext } from "./context.ts";

/** What one request to a CORS endpoint carries through its handler and hooks. */
export interface CorsCall<T> {
  /** The request's `Origin` exactly as sent (null when absent). */
  readonly origin: string | null;
  /**
   * What the handler learned before it answered or failed (a verified token's origin, its
   * claims, the cache level): the problem and outcome hooks read it. Starts empty, so every
   * member of `T` is optional.
   */
  readonly trace: T;
}

/** A handler's successful answer and whether the request's origin may read it. */
export interface CorsAnswer {
  response: Response;
  /** Echo the origin (`Access-Control-Allow-Origin`) on this answer. */
  readable: boolean;
}

/** A CORS endpoint's handler for one method. */
export type CorsHandler<T> = (ctx: RouteContext, call: CorsCall<T>) => Promise<CorsAnswer>;

/** What a route declares about its CORS endpoint. */
export interface CorsEndpoint<T> {
  /** Names the endpoint in the error log (`"<name> failed"` for an internal error). */
  name: string;
  /** Methods, headers and max-age a cross-origin browser is granted. */
  policy: CorsPolicy;
  /** Whether a preflight from `origin` gets allow headers (the policy checks method and headers). */
  allowPreflight(ctx: RouteContext, origin: string): boolean | Promise<boolean>;
  /** One handler per method (OPTIONS is the helper's). */
  handlers: Partial<Record<Exclude<Method, "OPTIONS" | "HEAD">, CorsHandler<T>>>;
  /** Whether `origin` may read the problem the handler failed with. */
  problemReadable(
    ctx: RouteContext,
    origin: string,
    trace: T,
    problem: AppError,
  ): boolean | Promise<boolean>;
  /** Counts a finished request (metrics, usage): `outcome` is `"ok"` or the problem's code. */
  outcome?(ctx: RouteContext, trace: T, outcome: string): void;
}

/** Whether `origin` names a real origin (not absent, empty, or the opaque `null`). */
export function isRealOrigin(origin: string | null): origin is string {
  return origin !== null && origin !== "" && origin !== "null";
}

/**
 * The route's `handler` export for `endpoint`: an OPTIONS preflight plus each declared method
 * wrapped in the error boundary and CORS headers.
 *
 * @example
 * ```ts
 * export const handler: Handlers = corsEndpoint<{ tokenOrigin?: string }>({
 *   name: "sign",
 *   policy: { methods: ["POST"], allowHeaders: ["content-type"], maxAgeSeconds: 600 },
 *   allowPreflight: () => true,
 *   problemReadable: (_ctx, origin, trace) => origin === trace.tokenOrigin,
 *   handlers: {
 *     async POST(ctx, call) {
 *       return { response: Response.json(await sign(ctx, call.trace)), readable: true };
 *     },
 *   },
 * });
 * ```
 */
export function corsEndpoint<T extends object>(endpoint: CorsEndpoint<T>): Handlers {
  const handlers: Handlers = {
    async OPTIONS(ctx) {
      const origin = readRequestOrigin(ctx.req.raw.headers);
      const allowed = isRealOrigin(origin) && await endpoint.allowPreflight(ctx, origin);
      return preflightResponse(ctx.req.raw, origin, allowed, endpoint.policy);
    },
  };
  for (const [method, handle] of Object.entries(endpoint.handlers)) {
    if (handle) handlers[method as Method] = boundary(endpoint, handle);
  }
  return handlers;
}

function boundary<T extends object>(endpoint: CorsEndpoint<T>, handle: CorsHandler<T>): Handler {
  const { policy } = endpoint;
  return async (ctx) => {
    const origin = readRequestOrigin(ctx.req.raw.headers);
    // Every member of T is optional (see CorsCall.trace): the handler fills it in as it learns.
    const call: CorsCall<T> = { origin, trace: {} as T };
    let answer: CorsAnswer;
    try {
      answer = await handle(ctx, call);
    } catch (err) {
      const e = toAppError(err);
      ctx.set("problemCode", e.code);
      if (e.code === "internal_error") {
        ctx.get("log").error(`${endpoint.name} failed`, { error: err });
      }
      endpoint.outcome?.(ctx, call.trace, e.code);
      const readable = isRealOrigin(origin) &&
        await endpoint.problemReadable(ctx, origin, call.trace, e);
      return withCors(problemResponse(e, ctx.get("requestId")), origin, readable, policy);
    }
    endpoint.outcome?.(ctx, call.trace, "ok");
    return withCors(answer.response, origin, isRealOrigin(origin) && answer.readable, policy);
  };
}
