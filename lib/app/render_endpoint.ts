/**
 * What every route a session-token holder calls on the kernel shares (render, export, AR ticket):
 * any origin may preflight (the token is checked on the actual request), an answer is readable
 * cross-origin only by the verified token's origin, and each finished request is counted as a
 * render (metrics and the key's usage) with the cache level it was served from.
 */
import type { RenderOutcome, RenderTrace } from "../render/render.ts";
import type { CorsEndpoint } from "./cors_endpoint.ts";

/** What a token-holder request learned: the verified token, and where a served scene came from. */
export type RenderEndpointTrace = RenderTrace & { cache?: RenderOutcome["cache"] };

/** The preflight, readability and counting hooks of a token-holder kernel route. */
export const RENDER_ENDPOINT_HOOKS: Pick<
  CorsEndpoint<RenderEndpointTrace>,
  "allowPreflight" | "problemReadable" | "outcome"
> = {
  allowPreflight: () => true,
  problemReadable: (_ctx, origin, trace) => origin === trace.tokenOrigin,
  outcome(ctx, trace, outcome) {
    // ctx.get, not ctx.var: Hono builds a fresh object of every variable on each `ctx.var`.
    const deps = ctx.get("deps");
    const cache = trace.cache ?? "none";
    deps.metrics.renders.inc({ outcome, cache });
    if (trace.claims) deps.usage?.recordRender(trace.claims.client_id, outcome, cache);
  },
};
