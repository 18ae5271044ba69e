/**
 * The render floor's worker (`floor_render_server.ts`): builds the spur gear directly with
 * manifold-3d (`direct_gear.ts`) and encodes and hashes its mesh with the kernel's own wire
 * format (`lib/kernel/mesh_encoding.ts`). Protocol: `{id, values}` in, `{id, json}` out, where
 * `json` is the `meshes` and `scene.triangles` part of a response, as JSON text.
 */
import { buildGear, type GearValues, loadManifold } from "./direct_gear.ts";
import { encodeMesh, meshHash } from "../lib/kernel/mesh_encoding.ts";

/** A build the floor server asks for. */
export interface FloorJob {
  id: number;
  values: GearValues;
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
scope.onmessage = async ({ data: { id, values } }) => {
  const gear = buildGear(wasm, values);
  const hash = await meshHash(gear.positions, gear.indices);
  const mesh = encodeMesh(gear.positions, gear.indices);
  const json = JSON.stringify({
    scene: { triangles: gear.triangles, volume: gear.volume },
    meshes: { [hash]: mesh },
  });
  scope.postMessage({ id, json });
};
scope.postMessage("ready");
