/**
 * CPU time by thread, read from Linux's `/proc/<pid>/task/<tid>/schedstat` (nanoseconds on a
 * CPU): where a bench's CPU went, not its wall time. render-capacity, mint and render-hit use it
 * to split what one render or request costs the product and the floor between this process's main
 * thread, its worker threads, V8's helper threads (parallel and concurrent GC, background
 * compilation) and the rest of the runtime, the Redis server and (render-capacity) the client
 * process — on two shared CPUs, throughput at saturation is what all of them spend together.
 * Elsewhere than Linux it reads nothing (`undefined`).
 */
import { createClient } from "redis";

/** CPU milliseconds by group: this process's thread groups and each named process. */
export type CpuSample = Record<string, number>;

/**
 * One reading: CPU milliseconds so far of each thread, keyed `<group> <tid>`. Deltas are taken
 * thread by thread (`addCpuDelta`), so a thread that ends between two readings takes its time
 * with it instead of making its group's difference negative.
 */
export type CpuReading = Record<string, number>;

/** The group a thread of this process counts in, by its name (`/proc/…/comm`) and id. */
function groupOf(tid: string, name: string): string {
  if (tid === String(Deno.pid)) return "main";
  if (name.startsWith("worker-")) return "workers";
  if (name.startsWith("V8 ")) return "V8 helpers";
  return "runtime";
}

/** CPU ms of every thread of `pid`, keyed `<group(tid, name)> <tid>`; undefined when unreadable. */
function threadsOf(
  pid: number,
  group: (tid: string, name: string) => string,
): CpuReading | undefined {
  const out: CpuReading = {};
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const dir = `/proc/${pid}/task/${task.name}`;
      try {
        const ns = Number(Deno.readTextFileSync(`${dir}/schedstat`).split(" ")[0]);
        const name = Deno.readTextFileSync(`${dir}/comm`).trim();
        out[`${group(task.name, name)} ${task.name}`] = ns / 1e6;
      } catch {
        // The thread ended between the listing and the read: its time is gone with it.
      }
    }
  } catch {
    return undefined;
  }
  return out;
}

/** Reads the CPU time of this process's threads and of other processes by name. */
export class CpuMeter {
  readonly #others: Record<string, number>;

  /** `others` names processes to read beside this one (for example the Redis server). */
  constructor(others: Record<string, number | undefined> = {}) {
    this.#others = Object.fromEntries(
      Object.entries(others).filter((entry): entry is [string, number] => entry[1] !== undefined),
    );
  }

  /** CPU ms so far per thread, or undefined when this system has no `/proc` schedstat. */
  sample(): CpuReading | undefined {
    const own = threadsOf(Deno.pid, groupOf);
    if (!own) return undefined;
    for (const [name, pid] of Object.entries(this.#others)) {
      Object.assign(own, threadsOf(pid, () => name));
    }
    return own;
  }
}

/**
 * `to` − `from` thread by thread, added into `into` by group (groups that spent nothing are kept
 * at 0). A thread that ended between the readings is left out: its time since `from` is lost.
 */
export function addCpuDelta(into: CpuSample, from: CpuReading, to: CpuReading): void {
  for (const [key, ms] of Object.entries(to)) {
    const group = key.slice(0, key.lastIndexOf(" "));
    into[group] = (into[group] ?? 0) + ms - (from[key] ?? 0);
  }
}

/** CPU a side spent over its rounds, and the units of work (renders, requests) it served. */
export interface CpuUse {
  cpu: CpuSample;
  units: number;
}

/** Thread groups and processes in the order the CPU lines name them. */
const GROUP_ORDER = ["main", "workers", "V8 helpers", "runtime", "redis-server", "client"];

/**
 * `<title>: total a / b; main a / b, …`: CPU per unit of work of two sides by group, in ms ×
 * `scale` (1000: µs) to `digits` decimals; no line when `/proc` could not be read (a side is then
 * undefined or spent nothing).
 *
 * @example
 * ```ts
 * cpuLines("CPU per render, product / floor (ms)", product, floor);
 * // ["CPU per render, product / floor (ms): total 21.02 / 18.01; main 2.51 / 1.23, …"]
 * ```
 */
export function cpuLines(
  title: string,
  a: CpuUse | undefined,
  b: CpuUse | undefined,
  scale = 1,
  digits = 2,
): string[] {
  if (!a || !b) return [];
  const groups = [...new Set([...Object.keys(a.cpu), ...Object.keys(b.cpu)])];
  if (groups.length === 0) return [];
  groups.sort((x, y) => GROUP_ORDER.indexOf(x) - GROUP_ORDER.indexOf(y));
  const per = (side: CpuUse, group?: string) => {
    const ms = group === undefined
      ? Object.values(side.cpu).reduce((x, y) => x + y, 0)
      : side.cpu[group] ?? 0;
    return (ms * scale / Math.max(1, side.units)).toFixed(digits);
  };
  return [
    `${title}: total ${per(a)} / ${per(b)}; ` +
    groups.map((g) => `${g} ${per(a, g)} / ${per(b, g)}`).join(", "),
  ];
}

/** The pid of the Redis server at `url` when it runs on this machine (else undefined). */
export async function redisServerPid(url: string): Promise<number | undefined> {
  const redis = createClient({ url });
  redis.on("error", () => {}); // no pid then: the CPU lines leave the Redis server out
  try {
    await redis.connect();
    return localRedisPid(await redis.info("server"));
  } catch {
    return undefined;
  } finally {
    if (redis.isOpen) await redis.close();
  }
}

/** The pid of the Redis server at `info` (an `INFO server` reply) if it runs on this machine. */
function localRedisPid(info: string): number | undefined {
  const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    return Deno.readTextFileSync(`/proc/${pid}/comm`).startsWith("redis") ? pid : undefined;
  } catch {
    return undefined;
  }
}
