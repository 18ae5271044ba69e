/**
 * The render pipeline (spec 4.2; the order is part of the contract and each step has its own
 * problem code): token signature and claims → revocation → Origin equals the token's origin →
 * the DAG is an instance of the token's project template → spend one unit of the token's budget
 * → L1 → L2 → evaluate off the request thread → respond with meshes the client does not hold.
 * The body size limit runs before all of this, in the route.
 */
import { parseJsonBytes } from "../http/json_body.ts";
import { AppError } from "../http/problem.ts";
import { validate } from "../http/validate.ts";
import type { CacheLevel, RenderCache } from "../cache/render_cache.ts";
import type { BudgetStore } from "../redis/budget.ts";
import type { RevocationList } from "../redis/revocation.ts";
import type { SessionClaims } from "../token/claims.ts";
import { TokenError } from "../token/errors.ts";
import type { CachingTokenVerifier } from "../token/verified_cache.ts";
import { cacheKey, dagHash } from "./canonical_dag.ts";
import { CheckedBodies, type CheckedBody, type FreshlyCheckedBody } from "./checked_bodies.ts";
import { KERNEL_VERSION } from "./kernel_version.ts";
import type { ProjectTemplates } from "./project_templates.ts";
import { RenderBody } from "./render_request.ts";
import type { EncodedMesh, Scene } from "./scene.ts";
import { assertInstanceOf } from "./template_instance.ts";
import type { Dag } from "./dag_types.ts";
import type { DagLimits } from "./dag_limits.ts";
import { assertPythonDag, PYTHON_MODE_LIMITS } from "./python_mode.ts";

/** The kernels this service runs. */
export const KERNELS = ["manifold"] as const;

/** What the pipeline needs from the process. */
export interface RenderDeps {
  verifier: Pick<CachingTokenVerifier, "verify">;
  revocations: Pick<RevocationList, "isRevoked">;
  budgets: BudgetStore;
  templates: Pick<ProjectTemplates, "get">;
  cache: Pick<RenderCache, "getOrCompute"> & Partial<Pick<RenderCache, "prefetch">>;
  /** Evaluates off the request thread; `limits` tightens the defaults (python-mode DAGs). */
  evaluate: (dag: Dag, limits?: Partial<DagLimits>) => Promise<Scene>;
  /** Bodies that passed the body checks before (optional: without it every body is checked). */
  checkedBodies?: CheckedBodies;
}

/** The transport-independent parts of a render request. */
export interface RenderInput {
  kernel: string;
  authorization: string | null;
  /** The `Origin` header exactly as sent, or null. */
  origin: string | null;
  /** The body bytes, already within the size limit. */
  body: Uint8Array;
}

/** What the pipeline learned, filled as it goes (the route uses it for CORS even on failure). */
export interface RenderTrace {
  /** The verified token's origin, once the signature has verified. */
  tokenOrigin?: string;
  claims?: SessionClaims;
}

/** The JSON render response (docs/api.md). */
export interface RenderResponse {
  kernel: string;
  kernelVersion: string;
  project: string;
  version: number;
  dagHash: string;
  cache: CacheLevel;
  budget: { remaining: number | null };
  scene: Omit<Scene, "meshes">;
  /** Meshes by hash, except those the request said it holds. */
  meshes: Record<string, EncodedMesh>;
  /** Hashes referenced by the scene but left out because the client holds them. */
  omitted: string[];
}

/**
 * Runs the pipeline for one request.
 *
 * @example
 * ```ts
 * const trace: RenderTrace = {};
 * const res = await renderRequest(deps, { kernel: "manifold", authorization, origin, body }, trace);
 * ```
 */
export async function renderRequest(
  deps: RenderDeps,
  input: RenderInput,
  trace: RenderTrace,
): Promise<RenderResponse> {
  if (!(KERNELS as readonly string[]).includes(input.kernel)) {
    throw new AppError(
      "unknown_kernel",
      `There is no kernel "${input.kernel}"; use one of: ${KERNELS.join(", ")}.`,
    );
  }
  const claims = await verify(deps, input.authorization, trace);
  trace.claims = claims;
  // The revocation lookup (a Redis round trip) runs while the body is checked; its answer still
  // comes first: a revoked token (or a Redis failure) is reported before an origin or body error.
  const revocation = deps.revocations.isRevoked(claims).then(
    (revoked) => ({ revoked, error: undefined }),
    (error: unknown) => ({ revoked: false, error }),
  );
  const notRevoked = async () => {
    const { revoked, error } = await revocation;
    if (error !== undefined) throw error;
    if (revoked) {
      throw new AppError("token_revoked", "This token, or the key that minted it, was revoked.");
    }
  };
  if (input.origin !== claims.origin) {
    await notRevoked();
    throw new AppError(
      "origin_mismatch",
      input.origin === null
        ? `The request has no Origin header; this token is bound to "${claims.origin}".`
        : `The Origin "${input.origin}" does not match this token's origin "${claims.origin}".`,
    );
  }
  let body: Awaited<ReturnType<typeof checkBody>>;
  try {
    body = await checkBody(deps, claims, input.body);
  } finally {
    await notRevoked();
  }
  const { checked, dag } = body;
  // The L2 read (if L1 misses) starts with the budget spend: one Redis round trip for both.
  const early = deps.cache.prefetch?.(checked.cacheKey);
  const spend = await deps.budgets.spend(claims.jti, claims.budget, claims.exp);
  if (!spend.allowed) {
    throw new AppError(
      "budget_exhausted",
      `This token's ${claims.budget} renders are spent; mint a new token to continue.`,
      { extensions: { budget: claims.budget, remaining: 0 } },
    );
  }
  const { scene, cache } = await deps.cache.getOrCompute(
    checked.cacheKey,
    () => {
      // A remembered body was checked before: its bytes parse to the same valid DAG.
      const toEvaluate = dag ?? (parseJsonBytes(input.body) as { dag: Dag }).dag;
      return checked.python
        ? deps.evaluate(toEvaluate, PYTHON_MODE_LIMITS)
        : deps.evaluate(toEvaluate);
    },
    early,
  );
  const have = new Set(checked.have);
  const meshes: Record<string, EncodedMesh> = {};
  const omitted: string[] = [];
  for (const [meshHash, mesh] of Object.entries(scene.meshes)) {
    if (have.has(meshHash)) omitted.push(meshHash);
    else meshes[meshHash] = mesh;
  }
  const { meshes: _all, ...rest } = scene;
  return {
    kernel: input.kernel,
    kernelVersion: KERNEL_VERSION,
    project: claims.project,
    version: checked.version,
    dagHash: checked.dagHash,
    cache,
    budget: { remaining: spend.remaining },
    scene: rest,
    meshes,
    omitted,
  };
}

/**
 * Steps 5–6 (body shape, template instance, values) for this token's project, answered from the
 * memo when the same bytes passed them before against the same project version.
 */
async function checkBody(
  deps: RenderDeps,
  claims: SessionClaims,
  bytes: Uint8Array,
): Promise<{ checked: CheckedBody; dag?: Dag }> {
  const memo = deps.checkedBodies;
  if (!memo) return await checkBodyNow(deps, claims, bytes);
  const digest = await CheckedBodies.digest(claims.project, bytes);
  const known = memo.get(digest);
  if (known) {
    const project = await deps.templates.get(claims.project, known.requestedVersion);
    if (project.version === known.version && project.templateHash === known.templateHash) {
      return { checked: known };
    }
  }
  return await memo.check(digest, () => checkBodyNow(deps, claims, bytes));
}

/** Parses and checks a body against the token's project template (no memo). */
async function checkBodyNow(
  deps: RenderDeps,
  claims: SessionClaims,
  bytes: Uint8Array,
): Promise<FreshlyCheckedBody> {
  const body = validate(RenderBody, parseJsonBytes(bytes));
  const project = await deps.templates.get(claims.project, body.version);
  // A template project renders only instances of its template; a python-mode project renders
  // any concrete DAG its Python produced, under stricter limits (lib/kernel/python_mode.ts).
  const python = project.mode === "python" || project.template === null;
  const dag = python
    ? assertPythonDag(body.dag)
    : await assertInstanceOf(body.dag, project.template!, project.templateHash, project.schema);
  const hash = await dagHash(dag);
  const checked = {
    requestedVersion: body.version,
    version: project.version,
    templateHash: project.templateHash,
    dagHash: hash,
    cacheKey: await cacheKey(KERNEL_VERSION, hash),
    have: body.have ?? [],
    python,
  };
  return { checked, dag };
}

async function verify(
  deps: RenderDeps,
  authorization: string | null,
  trace: RenderTrace,
): Promise<SessionClaims> {
  const match = authorization === null ? null : /^Bearer +(\S+)$/i.exec(authorization.trim());
  if (!match) {
    throw new AppError(
      "invalid_token",
      "Send the session token as `Authorization: Bearer sv1.…`.",
      {
        extensions: { reason: "missing" },
      },
    );
  }
  try {
    const claims = await deps.verifier.verify(match[1]);
    trace.tokenOrigin = claims.origin;
    return claims;
  } catch (err) {
    if (err instanceof TokenError && typeof err.verifiedPayload?.origin === "string") {
      trace.tokenOrigin = err.verifiedPayload.origin;
    }
    throw err;
  }
}
