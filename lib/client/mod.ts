/**
 * The browser SDK core, framework-free: session tokens (`SessionClient`), rendering
 * (`RenderClient`), mesh decoding and the geometry cache. The Preact islands build on these.
 *
 * Runs in browsers: no Deno APIs here.
 *
 * @example
 * ```ts
 * import { RenderClient, SessionClient } from "@/lib/client/mod.ts";
 * const session = new SessionClient({ keyId, projectKey: "wall-bracket", hubBaseUrl });
 * const renderer = new RenderClient({ baseUrl: kernelUrl, session });
 * await renderer.loadProject("wall-bracket");
 * const scene = await renderer.render({ width: 120 });
 * ```
 */

export { type Clock, ManualClock, systemClock, type TimerHandle } from "./clock.ts";
export { DEFAULT_GEOMETRY_CACHE_BYTES, GeometryCache } from "./geometry_cache.ts";
export {
  type DecodedMesh,
  decodeMesh,
  decodeMeshBuffers,
  meshDecoderReady,
  type MeshLayout,
} from "./mesh_decode.ts";
export { type DecodedRenderBody, decodeRenderBody } from "./render_body.ts";
export {
  type ClientErrorCode,
  MintError,
  type MintErrorCode,
  ProblemError,
  readProblem,
  RenderError,
  type RenderErrorCode,
} from "./problem.ts";
export { type LoadedProject, ProjectLoader, type ProjectScope } from "./project_loader.ts";
export {
  PYODIDE_VERSION,
  PythonRuntime,
  PythonRuntimeError,
  type PythonRuntimeOptions,
  renderWithPython,
} from "./python_runtime.ts";
export {
  type BudgetRemaining,
  type DesignRunner,
  RenderClient,
  type RenderClientOptions,
  type RenderOptions,
  type RenderSession,
  type RenderState,
} from "./render_client.ts";
export { afterNextPaint } from "./next_paint.ts";
export { type RenderedPart, type RenderResult } from "./render_result.ts";
export { DEFAULT_RETRY, type RetryOptions } from "./retry_policy.ts";
export {
  type BrowserFlowOptions,
  DEFAULT_HUB_BASE_URL,
  refreshDelayMs,
  type ServerFlowOptions,
  SessionClient,
  type SessionClientOptions,
  type SessionStatus,
  type TokenExpiredDetail,
} from "./session_client.ts";
