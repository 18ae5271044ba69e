/**
 * Evaluation of a validated DAG (docs/dag.md) into a Scene with manifold-3d: numbers, booleans and
 * strings in JS, profiles as CrossSections, solids as Manifolds, repeats as *instances* (one solid
 * and a list of column-major 4×4 transforms, sent once and drawn N times).
 *
 * What each op does lives with its spec in `lib/kernel/ops/`; the walk over the graph (and the
 * ownership of every WASM object it makes) in `dag_walk.ts`. This file is the entry point and the
 * last step: parts copied out of WASM memory into meshes, hashes and the scene.
 *
 * Three properties matter more than speed:
 * - **Nothing leaks.** Whatever evaluation made is deleted before it returns or throws.
 * - **Hostile values fail typed.** Validation has seen the JSON; only evaluation sees computed
 *   values. Every computed number is finite and within ±1e6, within its member's range (the
 *   op's spec, as for literals), segments and counts within their limits, every intermediate
 *   within the triangle limit — or an EvalError with the pointer of the node (and member) to blame.
 * - **Iterative, lazy walk**, so deep chains do not overflow and `select` evaluates only the
 *   branch it picks.
 */
import type { Manifold } from "manifold-3d";
import type { Dag } from "../dag/dag_types.ts";
import type { EncodedMesh, Scene, ScenePart } from "../dag/scene.ts";
import { DagWalk } from "./dag_walk.ts";
import { effectiveValues } from "./effective_values.ts";
import { EvalError } from "./eval_errors.ts";
import { DEFAULT_EVAL_LIMITS, type EvalLimits } from "./eval_limits.ts";
import { getManifoldRuntime, type ManifoldRuntime } from "./manifold_runtime.ts";
import type { SolidCache } from "./solid_cache.ts";
import type { SubtreeKeys } from "./subtree_keys.ts";
import {
  encodeMesh,
  meshEncoderReady,
  meshHash,
  reorderForWire,
  type WireMesh,
} from "./mesh_encoding.ts";
import type { AssemblyValue } from "./ops/values.ts";
import { applyToPoint, linearDeterminant, type Mat4, type Vec3 } from "./transforms.ts";

/** Options of `evaluateDag`. */
export interface EvaluateDagOptions {
  /** Checked between nodes: an aborted signal stops evaluation with `render_timeout`. */
  signal?: AbortSignal;
  /**
   * Solids kept between evaluations (dag_walk.ts, "Reuse between renders"), for a DAG that is an
   * instance of the template whose shape hash is `shape` — the caller vouches for it.
   */
  reuse?: EvaluationReuse;
}

/** A worker's cache of solids, its keys, and the template this DAG is an instance of. */
export interface EvaluationReuse {
  cache: SolidCache;
  keys: SubtreeKeys;
  shape: string;
  /** Offer a solid to the cache only when computing it took this long (ms); default 0.5. */
  minMs?: number;
}

/** Below this a solid is cheaper to rebuild than to hold (a cylinder, a small extrusion). */
const REUSE_MIN_MS = 0.5;

/**
 * Evaluates a validated DAG into a Scene (on this thread's shared runtime unless one is given).
 * Throws an EvalError for anything wrong that only evaluation can see; every WASM object it
 * created is deleted before it returns or throws.
 *
 * @example
 * ```ts
 * const scene = await evaluateDag(dag, await getManifoldRuntime(), DEFAULT_EVAL_LIMITS);
 * scene.parts[0].mesh; // a key of scene.meshes
 * ```
 */
export async function evaluateDag(
  dag: Dag,
  runtime?: ManifoldRuntime,
  limits: EvalLimits = DEFAULT_EVAL_LIMITS,
  options: EvaluateDagOptions = {},
): Promise<Scene> {
  return (await evaluateDagExact(dag, runtime, limits, options)).scene;
}

/**
 * A mesh as the kernel holds it (in meshopt's vertex and triangle order), before the lossy wire
 * encoding (positions are quantized).
 */
export interface ExactMesh {
  /** Float32 x, y, z per vertex. */
  positions: Float32Array;
  /** Three vertex indices per triangle. */
  indices: Uint32Array;
}

/**
 * `evaluateDag`, also returning every mesh's exact geometry by hash: for checks that must not
 * see the quantization (closed manifolds, volumes) and for measuring the encoding.
 *
 * @example
 * ```ts
 * const { scene, exact } = await evaluateDagExact(dag);
 * exact.get(scene.parts[0].mesh)!.positions; // Float32Array
 * ```
 */
export async function evaluateDagExact(
  dag: Dag,
  runtime?: ManifoldRuntime,
  limits: EvalLimits = DEFAULT_EVAL_LIMITS,
  options: EvaluateDagOptions = {},
): Promise<{ scene: Scene; exact: Map<string, ExactMesh> }> {
  const rt = runtime ?? await getManifoldRuntime();
  await meshEncoderReady();
  const reuse = options.reuse;
  const evaluation = new DagWalk(
    dag,
    rt,
    limits,
    options.signal,
    reuse && {
      cache: reuse.cache,
      keys: reuse.keys.forWalk(reuse.shape, dag, limits),
      minMs: reuse.minMs ?? REUSE_MIN_MS,
    },
  );
  let extracted: ExtractedPart[];
  try {
    extracted = extractParts(evaluation.run(), limits);
  } finally {
    evaluation.dispose();
  }
  const built = await buildScene(extracted);
  const effective = effectiveValues(dag, evaluation.numbers, evaluation.computed);
  if (Object.keys(effective).length > 0) built.scene.effective = effective;
  return built;
}

// ---------------------------------------------------------------------------------------------
// From parts to the scene

/** A part's mesh copied out of WASM memory, with what the scene needs from the solid. */
interface ExtractedPart {
  name: string;
  color: string;
  transforms: Mat4[];
  mesh: ExtractedMesh;
}
interface ExtractedMesh extends WireMesh {
  volume: number;
}

/** Copies every part's mesh out of WASM (once per distinct solid) and checks drawn triangles. */
function extractParts(assembly: AssemblyValue, limits: EvalLimits): ExtractedPart[] {
  const meshes = new Map<Manifold, ExtractedMesh>();
  let drawn = 0;
  return assembly.parts.map((part) => {
    drawn += part.m.numTri() * part.transforms.length;
    if (drawn > limits.maxTriangles) {
      throw new EvalError(
        "invalid_dag",
        "too_many_triangles",
        `The scene draws ${drawn} triangles; the limit is ${limits.maxTriangles}.`,
        { pointer: part.pointer },
      );
    }
    let mesh = meshes.get(part.m);
    if (!mesh) {
      const raw = part.m.getMesh();
      const vertexCount = raw.vertProperties.length / raw.numProp;
      const positions = new Float32Array(vertexCount * 3);
      for (let v = 0; v < vertexCount; v++) {
        for (let k = 0; k < 3; k++) {
          // `+ 0` turns -0 into 0: equal geometry must give equal bytes and hashes.
          positions[v * 3 + k] = raw.vertProperties[v * raw.numProp + k] + 0;
        }
      }
      // In meshopt's order before anything is hashed: the hash names the geometry as sent.
      const wire = reorderForWire(positions, new Uint32Array(raw.triVerts));
      mesh = { ...wire, volume: part.m.volume() };
      meshes.set(part.m, mesh);
    }
    return { name: part.name, color: part.color, transforms: part.transforms, mesh };
  });
}

async function buildScene(
  extracted: ExtractedPart[],
): Promise<{ scene: Scene; exact: Map<string, ExactMesh> }> {
  const hashes = new Map<ExtractedMesh, string>();
  const meshes: Record<string, EncodedMesh> = {};
  const exact = new Map<string, ExactMesh>();
  const parts: ScenePart[] = [];
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  let triangles = 0;
  let volume = 0;
  for (const part of extracted) {
    const { positions, indices, codedIndices } = part.mesh;
    let hash = hashes.get(part.mesh);
    if (hash === undefined) {
      hash = await meshHash(positions, indices);
      hashes.set(part.mesh, hash);
      if (!Object.hasOwn(meshes, hash)) {
        meshes[hash] = encodeMesh(positions, indices, codedIndices);
        exact.set(hash, { positions, indices });
      }
    }
    for (const t of part.transforms) {
      volume += part.mesh.volume * Math.abs(linearDeterminant(t));
      growBox(min, max, positions, t);
    }
    triangles += (indices.length / 3) * part.transforms.length;
    parts.push({
      name: part.name,
      color: part.color,
      mesh: hash,
      instances: part.transforms.map((t) => t.map((v) => v + 0)), // -0 → 0
    });
  }
  return { scene: { parts, meshes, bbox: { min, max }, triangles, volume }, exact };
}

/** Grows [min, max] by every vertex of a mesh placed by `t` (exact, not a transformed box). */
function growBox(min: Vec3, max: Vec3, positions: Float32Array, t: Mat4): void {
  const linear = t[0] === 1 && t[1] === 0 && t[2] === 0 && t[4] === 0 && t[5] === 1 &&
    t[6] === 0 && t[8] === 0 && t[9] === 0 && t[10] === 1;
  const point: Vec3 = [0, 0, 0];
  for (let i = 0; i < positions.length; i += 3) {
    point[0] = positions[i];
    point[1] = positions[i + 1];
    point[2] = positions[i + 2];
    const q = linear
      ? [point[0] + t[12], point[1] + t[13], point[2] + t[14]]
      : applyToPoint(t, point);
    for (let k = 0; k < 3; k++) {
      if (q[k] < min[k]) min[k] = q[k];
      if (q[k] > max[k]) max[k] = q[k];
    }
  }
}
