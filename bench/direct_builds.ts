/**
 * render-capacity's floor: `size` worker threads building spur gears directly with manifold-3d
 * (`floor_render_worker.ts` with `build: "only"`: no DAG, HTTP, cache, hashing or encoding), each
 * taking the next gear of a shared list as soon as it is done — the most gears per second those
 * threads can build on this machine.
 */
import type { GearValues } from "./direct_gear.ts";
import type { FloorJob, FloorReply } from "./floor_render_worker.ts";

/** One batch: wall time, and each gear's triangles and volume in list order. */
export interface DirectBatch {
  ms: number;
  scenes: { triangles: number; volume: number }[];
}

/** Warm worker threads that build gears directly. */
export class DirectBuilders {
  readonly #workers: Worker[];

  private constructor(workers: Worker[]) {
    this.#workers = workers;
  }

  /** Starts `size` workers and waits until each has loaded manifold-3d. */
  static async start(size: number): Promise<DirectBuilders> {
    const workers = Array.from(
      { length: size },
      () => new Worker(new URL("./floor_render_worker.ts", import.meta.url), { type: "module" }),
    );
    await Promise.all(workers.map((worker) =>
      new Promise<void>((ready) => {
        worker.onmessage = (event) => event.data === "ready" && ready();
      })
    ));
    return new DirectBuilders(workers);
  }

  /** Builds every gear of `list` on the workers (each takes the next when done). */
  async build(list: GearValues[]): Promise<DirectBatch> {
    const scenes: DirectBatch["scenes"] = new Array(list.length);
    let next = 0;
    const t0 = performance.now();
    await Promise.all(this.#workers.map((worker) =>
      new Promise<void>((done) => {
        const take = () => {
          if (next >= list.length) return done();
          const id = next++;
          const job: FloorJob = { id, values: list[id], build: "only" };
          worker.postMessage(job);
        };
        worker.onmessage = (event: MessageEvent<FloorReply>) => {
          scenes[event.data.id] = JSON.parse(event.data.json).scene;
          take();
        };
        take();
      })
    ));
    return { ms: performance.now() - t0, scenes };
  }

  /** Terminates the workers. */
  close(): void {
    for (const worker of this.#workers) worker.terminate();
  }
}
