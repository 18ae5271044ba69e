/**
 * The render floor's worker (`floor_render_server.ts`): builds the spur gear directly with
 * manifold-3d (`direct_gear.ts`) and reorders, hashes and encodes its mesh with the kernel's own
 * wire format (`lib/kernel/mesh_encoding.ts`: meshopt order, hash, meshopt codecs). Protocol: `{id, values}` in, `{id, json}` out, where
 * `json` is the `meshes` and `scene.triangles` part of a response, as JSON text. With
 * `build: "only"` (render-capacity's direct builds) it builds and answers `scene` alone.
 */
import { buildGear, type GearValues, loadManifold } from "./direct_gear.ts";
import {
  encodeMesh,
  meshEncoderReady,
  meshHash,
  reorderForWire,
} from "../lib/kernel/mesh_encoding.ts";

/** A build the floor server asks for. */
export interface FloorJob {
  id: number;
  values: GearValues;
  /** "only": build, no hash or encoding; the answer has `scene` alone. */
  build?: "only";
}

/** The answer: the response members the build produced, as JSON text. */
export interface FloorReply {
  id: number;
  json: string;
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<FloorJob>) => void) | null;
  postMessage(message: FloorReply | "ready"): void;
};

const wasm = await loadManifold();
await meshEncoderReady();
scope.onmessage = async ({ data: { id, values, build } }) => {
  const gear = buildGear(wasm, values);
  if (build === "only") {
    const scene = { triangles: gear.triangles, volume: gear.volume };
    return scope.postMessage({ id, json: JSON.stringify({ scene }) });
  }
  const wire = reorderForWire(gear.positions, gear.indices);
  const hash = await meshHash(wire.positions, wire.indices);
  const mesh = encodeMesh(wire.positions, wire.indices, wire.codedIndices);
  const json = JSON.stringify({
    scene: { triangles: gear.triangles, volume: gear.volume },
    meshes: { [hash]: mesh },
  });
  scope.postMessage({ id, json });
};
scope.postMessage("ready");
