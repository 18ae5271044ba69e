/**
 * The render pipeline (spec 4.2; the order is part of the contract and each step has its own
 * problem code): token signature and claims → revocation → Origin equals the token's origin →
 * the DAG is an instance of the token's project template → spend one unit of the token's budget
 * → L1 → L2 → evaluate off the request thread → respond with meshes the client does not hold.
 * The body size limit runs before all of this, in the route.
 */
import { parseJsonText } from "../http/json_body.ts";
import { AppError } from "../http/problem.ts";
import { decodeUtf8 } from "../http/utf8.ts";
import { validate } from "../http/validate.ts";
import type { CacheLevel } from "../dag/render_response.ts";
import type { RenderCache } from "./render_cache.ts";
import type { PreparedBody, RenderForm } from "./render_response_bytes.ts";
import { negotiateRenderForm } from "./render_form.ts";
import { acceptedCodings } from "../http/content_coding.ts";
import type { BudgetSpend, BudgetStore } from "./budget.ts";
import type { RevocationList } from "./revocation_replica.ts";
import type { SessionClaims } from "../token/claims.ts";
import { TokenError } from "../token/errors.ts";
import type { CachingTokenVerifier } from "../token/verified_cache.ts";
import { cacheKey, dagHash } from "../dag/canonical_dag.ts";
import { CheckedBodies, type CheckedBody } from "./checked_bodies.ts";
import { KERNEL_VERSION } from "../kernel/kernel_version.ts";
import type { ProjectTemplates } from "./project_templates.ts";
import { RenderBody } from "./render_request.ts";
import { parseIdempotencyKey } from "./idempotency_key.ts";
import type { Scene } from "../dag/scene.ts";
import { checkInstance } from "../kernel/template_instance.ts";
import type { DagSource } from "../kernel/worker_protocol.ts";
import type { DagLimits } from "../dag/dag_limits.ts";
import { assertPythonDag, PYTHON_MODE_LIMITS } from "../kernel/python_mode.ts";

/** The kernels this service runs. */
export const KERNELS = ["manifold"] as const;

/** What the pipeline needs from the process. */
export interface RenderDeps {
  verifier: Pick<CachingTokenVerifier, "verify">;
  revocations: Pick<RevocationList, "isRevoked">;
  budgets: BudgetStore;
  templates: Pick<ProjectTemplates, "get">;
  cache: Pick<RenderCache, "getOrCompute"> & Partial<Pick<RenderCache, "prefetch" | "forgo">>;
  /**
   * Evaluates off the request thread; `limits` tightens the defaults (python-mode DAGs); `tenant`
   * is whose render it is, for fair admission to the evaluation pool.
   */
  evaluate: (dag: DagSource, limits?: Partial<DagLimits>, tenant?: RenderTenant) => Promise<Scene>;
  /** Per-key daily and monthly render quotas (optional: absent, nothing is counted). */
  quotas?: {
    /** Counts one render against the key's quotas; throws `quota_exceeded` when one is spent. */
    spend(keyId: string): Promise<void>;
    /** Gives back one render counted by `spend`. */
    refund(keyId: string): Promise<void>;
  };
  /** Bodies that passed the body checks before (optional: without it every body is checked). */
  checkedBodies?: CheckedBodies;
}

/** Whose render an evaluation is: the token and its partner (fair admission). */
export interface RenderTenant {
  token: string;
  partner: string;
}

/** Problem codes of a render that was not served through no fault of the request: no charge. */
const NOT_CHARGED: ReadonlySet<string> = new Set([
  "kernel_busy",
  "render_timeout",
  "internal_error",
]);

/** The transport-independent parts of a render request. */
export interface RenderInput {
  kernel: string;
  authorization: string | null;
  /** The `Origin` header exactly as sent, or null. */
  origin: string | null;
  /** The body bytes, already within the size limit. */
  body: Uint8Array;
  /** The `Accept` header (picks the JSON or binary form), or null. */
  accept?: string | null;
  /** The `Accept-Encoding` header (picks brotli, gzip or none), or null. */
  acceptEncoding?: string | null;
  /**
   * The `Idempotency-Key` header as sent, or null: a retry with the same key and DAG does not
   * spend a second unit (checked after the Origin, lib/render/idempotency_key.ts).
   */
  idempotencyKey?: string | null;
}

/** What the pipeline learned, filled as it goes (the route uses it for CORS even on failure). */
export interface RenderTrace {
  /** The verified token's origin, once the signature has verified. */
  tokenOrigin?: string;
  claims?: SessionClaims;
}

/** What the route sends: the response body (docs/api.md) and where the scene came from. */
export interface RenderOutcome {
  cache: CacheLevel;
  /** The response body in `form`, compressed in `body.coding` (null: identity). */
  body: PreparedBody;
  form: RenderForm;
}

/**
 * Runs the pipeline for one request.
 *
 * Redis is asked once per request, in one batch: the revocation check is in memory (a replica of
 * the revocation log in KV, lib/render/revocation_replica.ts) and comes first, the body checks
 * follow (a body whose exact text passed them before is answered by the memo), and then the budget
 * spend and (if L1 misses) the L2 read, after the lease attempt of a cross-node single flight,
 * leave together (render_cache.ts, prefetch). A render that is refused after its spend
 * (quota, capacity) or stopped (deadline, crashed worker) gets its unit back.
 *
 * @example
 * ```ts
 * const trace: RenderTrace = {};
 * const out = await renderRequest(deps, { kernel: "manifold", authorization, origin, body }, trace);
 * ```
 */
export async function renderRequest(
  deps: RenderDeps,
  input: RenderInput,
  trace: RenderTrace,
): Promise<RenderOutcome> {
  let early: ReturnType<NonNullable<RenderDeps["cache"]["prefetch"]>>;
  let admitted: AdmittedRender;
  try {
    admitted = await admitRender(deps, input, trace, {
      // Sent in the same tick as the budget spend: the client writes both to Redis as one batch.
      prefetch: (checked) => {
        early = deps.cache.prefetch?.(checked.cacheKey);
      },
    });
  } catch (err) {
    deps.cache.forgo?.(early); // refused after the early read (and lease attempt) left
    throw err;
  }
  const { claims, checked, spend } = admitted;
  let rendered: Awaited<ReturnType<RenderDeps["cache"]["getOrCompute"]>>;
  try {
    rendered = await deps.cache.getOrCompute(
      checked.cacheKey,
      () => deps.evaluate(admitted.dag(), admitted.limits, admitted.tenant),
      early,
    );
  } catch (err) {
    await refundUnserved(deps, claims, err, admitted);
    throw err;
  }
  const { scene, cache } = rendered;
  const form = negotiateRenderForm(input.accept);
  const codings = acceptedCodings(input.acceptEncoding);
  const response = scene.response(
    {
      kernel: input.kernel,
      kernelVersion: KERNEL_VERSION,
      project: claims.project,
      version: checked.version,
      dagHash: checked.dagHash,
      cache,
      remaining: spend.remaining,
    },
    checked.have,
    form,
    codings[0] ?? null,
    codings.includes("gzip"),
  );
  return { cache, body: response, form };
}

/** A request that passed every check of the pipeline and paid its unit (see `admitRender`). */
export interface AdmittedRender {
  claims: SessionClaims;
  checked: CheckedBody;
  spend: BudgetSpend;
  /** The idempotency key the spend was recorded under, or null. */
  idempotencyKey: string | null;
  /**
   * The DAG to evaluate, as the body's text (the checked DAG is its `dag` member, and the text
   * reaches a worker cheaper than the object).
   */
  dag(): DagSource;
  /** Tighter limits for a python-mode DAG, else undefined. */
  limits?: Partial<DagLimits>;
  /** Whose evaluation it is, for fair admission to the pool. */
  tenant: RenderTenant;
}

/** Steps a caller of `admitRender` adds to the pipeline. */
export interface AdmitOptions {
  /**
   * Runs after the token checks (signature, revocation, origin) and before the body is read or
   * anything is spent; throws an AppError to refuse (exports: the key's allowed formats).
   */
  allow?: (claims: SessionClaims) => Promise<void> | void;
  /** Called in the same tick as the budget spend (an L2 read that shares its round trip). */
  prefetch?: (checked: CheckedBody) => void;
}

/**
 * The checks and the payment of a render, shared by renders and exports (one code path): kernel,
 * token signature and claims, revocation, Origin, the caller's own gate, body and template
 * instance, budget unit, key quota. The caller evaluates, and gives the units back with
 * `refundUnserved` when the evaluation was not served.
 *
 * @example
 * ```ts
 * const admitted = await admitRender(deps, input, trace);
 * const scene = await deps.evaluate(admitted.dag(), admitted.limits, admitted.tenant);
 * ```
 */
export async function admitRender(
  deps: RenderDeps,
  input: RenderInput,
  trace: RenderTrace,
  options: AdmitOptions = {},
): Promise<AdmittedRender> {
  if (!(KERNELS as readonly string[]).includes(input.kernel)) {
    throw new AppError(
      "unknown_kernel",
      `There is no kernel "${input.kernel}"; use one of: ${KERNELS.join(", ")}.`,
    );
  }
  const claims = await verify(deps, input.authorization, trace);
  trace.claims = claims;
  // A stale replica throws service_unavailable: revocations fail closed.
  if (await deps.revocations.isRevoked(claims)) {
    throw new AppError("token_revoked", "This token, or the key that minted it, was revoked.");
  }
  if (input.origin !== claims.origin) {
    throw new AppError(
      "origin_mismatch",
      input.origin === null
        ? `The request has no Origin header; this token is bound to "${claims.origin}".`
        : `The Origin "${input.origin}" does not match this token's origin "${claims.origin}".`,
    );
  }
  await options.allow?.(claims);
  const idempotencyKey = parseIdempotencyKey(input.idempotencyKey);
  // The body's first check: its text is the memo's key, what the checks parse and what the worker
  // evaluates.
  const text = decodeUtf8(input.body);
  if (text === undefined) throw new AppError("invalid_body", "The body is not valid UTF-8.");
  const checked = await checkBody(deps, claims, text);
  options.prefetch?.(checked);
  const idempotency = idempotencyKey
    ? { key: idempotencyKey, fingerprint: checked.cacheKey }
    : undefined;
  const spend = await deps.budgets.spend(claims.jti, claims.budget, claims.exp, idempotency);
  if (!spend.allowed) {
    throw new AppError(
      "budget_exhausted",
      `This token's ${claims.budget} renders are spent; mint a new token to continue.`,
      { extensions: { budget: claims.budget, remaining: 0 } },
    );
  }
  // A replayed render was counted by the request that paid for it.
  if (deps.quotas && !spend.replayed) {
    try {
      await deps.quotas.spend(claims.client_id);
    } catch (err) {
      await refund(deps, claims, false, idempotencyKey);
      throw err;
    }
  }
  return {
    claims,
    checked,
    spend,
    idempotencyKey,
    // The checks passed the body's own `dag` member (its nodes as parsed, not rewritten), and a
    // remembered body passed them before: either way the text parses to the same valid DAG.
    dag: () => ({ dagIn: text, shape: checked.python ? undefined : checked.templateHash }),
    limits: checked.python ? PYTHON_MODE_LIMITS : undefined,
    tenant: { token: claims.jti, partner: claims.partner },
  };
}

/**
 * Gives back the units of an admitted render whose evaluation failed with `err` when it was not
 * served through no fault of the request (refused for capacity, stopped at the deadline, lost
 * with a crashed worker; both stores refund exactly, see budget.ts). A replayed spend (`paid`)
 * paid nothing and gets nothing back.
 */
export async function refundUnserved(
  deps: RenderDeps,
  claims: SessionClaims,
  err: unknown,
  paid?: Pick<AdmittedRender, "spend" | "idempotencyKey">,
): Promise<void> {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== "string" || !NOT_CHARGED.has(code) || paid?.spend.replayed) return;
  await refund(deps, claims, true, paid?.idempotencyKey);
}

/**
 * Gives back the budget unit (and the quota unit when `quota`) of a render that was not served. A
 * failed refund is not reported to the client: its render failed for another reason, and the
 * unit simply stays spent (never more than the budget).
 */
async function refund(
  deps: RenderDeps,
  claims: SessionClaims,
  quota: boolean,
  idempotencyKey?: string | null,
): Promise<void> {
  await Promise.allSettled([
    deps.budgets.refund(claims.jti, claims.budget, idempotencyKey ?? undefined),
    quota ? deps.quotas?.refund(claims.client_id) : undefined,
  ]);
}

/**
 * The memo's entry for this exact body text if it is still valid for the project version it
 * names; undefined on any doubt (the full checks then run, in order, and report errors).
 */
async function rememberedBody(
  deps: RenderDeps,
  claims: SessionClaims,
  memoKey: string,
): Promise<CheckedBody | undefined> {
  const known = deps.checkedBodies?.get(memoKey);
  if (!known) return undefined;
  try {
    const project = await deps.templates.get(projectOf(claims), known.requestedVersion);
    if (project.version === known.version && project.templateHash === known.templateHash) {
      return known;
    }
  } catch {
    // The full path asks again and reports the error in its place in the order.
  }
  return undefined;
}

/**
 * Steps 5–6 (body shape, template instance, values) for this token's project, answered from the
 * memo when the same text passed them before against the same project version.
 */
async function checkBody(
  deps: RenderDeps,
  claims: SessionClaims,
  text: string,
): Promise<CheckedBody> {
  const memo = deps.checkedBodies;
  if (!memo) return await checkBodyNow(deps, claims, text);
  const memoKey = CheckedBodies.key(`${claims.partner}/${claims.project}`, text);
  const known = await rememberedBody(deps, claims, memoKey);
  if (known) return known;
  return await memo.check(memoKey, () => checkBodyNow(deps, claims, text));
}

/** Parses and checks a body's text against the token's project template (no memo). */
async function checkBodyNow(
  deps: RenderDeps,
  claims: SessionClaims,
  text: string,
): Promise<CheckedBody> {
  const body = validate(RenderBody, parseJsonText(text));
  const project = await deps.templates.get(projectOf(claims), body.version);
  // A template project renders only instances of its template; a python-mode project renders
  // any concrete DAG its Python produced, under stricter limits (lib/kernel/python_mode.ts).
  const python = project.mode === "python" || project.template === null;
  const hash = python
    ? await dagHash(assertPythonDag(body.dag))
    : (await checkInstance(body.dag, project.template!, project.templateHash, project.schema))
      .dagHash;
  return {
    requestedVersion: body.version,
    version: project.version,
    templateHash: project.templateHash,
    dagHash: hash,
    cacheKey: await cacheKey(KERNEL_VERSION, hash),
    have: body.have ?? [],
    python,
  };
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

/** The project a token is for: its `partner` and `project` claims (slugs are per partner). */
function projectOf(claims: SessionClaims): { partnerId: string; slug: string } {
  return { partnerId: claims.partner, slug: claims.project };
}
