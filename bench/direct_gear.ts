/**
 * The cold-render baseline: the spur-gear example (`examples/projects/spur-gear`) built by hand
 * with manifold-3d calls in this thread — the same solids and booleans its template describes —
 * down to the mesh arrays and the volume, with no DAG, validation, worker, cache, encoding or HTTP.
 */
import Module from "manifold-3d";
import type { Manifold, ManifoldToplevel } from "manifold-3d";

/** The spur-gear parameters the baseline takes (the example's names). */
export interface GearValues {
  teeth: number;
  module: number;
  thickness: number;
  hubDiameter: number;
  hubHeight: number;
  boreDiameter: number;
}

/** A loaded manifold-3d module for the baseline (its own WASM instance). */
export async function loadManifold(): Promise<ManifoldToplevel> {
  const module = await Module();
  module.setup();
  return module;
}

/** Builds the gear and copies its mesh out; returns triangles and volume (every object freed). */
export function buildGear(
  wasm: ManifoldToplevel,
  v: GearValues,
): { triangles: number; volume: number; positions: Float32Array; indices: Uint32Array } {
  const { Manifold, CrossSection } = wasm;
  const made: { delete(): void }[] = [];
  const keep = <T extends { delete(): void }>(x: T): T => (made.push(x), x);
  try {
    const pitchRadius = v.module * v.teeth * 0.5;
    const tipRadius = pitchRadius + v.module;
    const rootRadius = pitchRadius - v.module * 1.25;
    const footRadius = rootRadius - v.module * 0.5;
    const rootHalf = Math.min(v.module * 1.24, rootRadius * 2.8274 / v.teeth);
    const tipHalf = rootHalf * 0.34;
    const profile = keep(
      new CrossSection([[
        [footRadius, -rootHalf],
        [rootRadius, -rootHalf],
        [tipRadius, -tipHalf],
        [tipRadius, tipHalf],
        [rootRadius, rootHalf],
        [footRadius, rootHalf],
      ]], "Positive"),
    );
    const tooth = keep(profile.extrude(v.thickness));
    const teeth: Manifold[] = [];
    for (let i = 0; i < v.teeth; i++) teeth.push(keep(tooth.rotate([0, 0, i * 360 / v.teeth])));
    const rootDisk = keep(Manifold.cylinder(v.thickness, rootRadius, rootRadius, 96));
    const hubRadius = Math.min(v.hubDiameter / 2, rootRadius);
    const hubHeight = v.thickness + Math.max(v.hubHeight, 0.5);
    const hub = keep(Manifold.cylinder(hubHeight, hubRadius, hubRadius, 64));
    const body = keep(
      Manifold.union(v.hubHeight > 0 ? [rootDisk, ...teeth, hub] : [rootDisk, ...teeth]),
    );
    const boreRadius = Math.min(v.boreDiameter / 2, hubRadius * 0.7);
    const boreLength = v.thickness + v.hubHeight + 2;
    const boreCylinder = keep(Manifold.cylinder(boreLength, boreRadius, boreRadius, 48));
    const bore = keep(boreCylinder.translate([0, 0, -1]));
    const gear = keep(Manifold.difference([body, bore]));
    const mesh = gear.getMesh();
    const vertexCount = mesh.vertProperties.length / mesh.numProp;
    const positions = new Float32Array(vertexCount * 3);
    for (let i = 0; i < vertexCount; i++) {
      for (let k = 0; k < 3; k++) positions[i * 3 + k] = mesh.vertProperties[i * mesh.numProp + k];
    }
    return {
      triangles: gear.numTri(),
      volume: gear.volume(),
      positions,
      indices: new Uint32Array(mesh.triVerts),
    };
  } finally {
    for (const object of made) object.delete();
  }
}

/** Distinct, valid gear values for round `i` (a new cache key every round). */
export function gearValuesFor(i: number): GearValues {
  return {
    teeth: 20 + (i % 12),
    module: 2,
    thickness: 6 + (i % 40) * 0.5,
    hubDiameter: 20,
    hubHeight: 6,
    boreDiameter: 6 + Math.floor(i / 40) * 0.5,
  };
}

/**
 * Renders each side of a render bench takes before its rounds (new values each, small gears): a
 * running kernel-api is JIT-warm, and a cold render means new values, not new code. Three were
 * not enough: V8 had not yet optimized the code that runs once per render (the product runs far
 * more of it than the floor), and render-cold measured 1.24 and 1.18 ÷ floor after 3 against 1.13
 * and 1.13 after 100 in alternating runs (docs/performance.md, 2026-11-28, ninth session).
 */
export const WARM_RENDERS = 100;

/**
 * Small valid gear values for warm-up render `i` (below 1,725); no round uses them (module 1).
 * Like every round's gear they have a hub that no bound limits, so the warm-up runs the code the
 * rounds run: the same DAG branch (the hub's union), ops and effective-value checks.
 */
export function warmGearValues(i: number): GearValues {
  return {
    teeth: 12 + Math.floor(i / 25),
    module: 1,
    thickness: 3 + (i % 25),
    hubDiameter: 8,
    hubHeight: 6,
    boreDiameter: 3,
  };
}
