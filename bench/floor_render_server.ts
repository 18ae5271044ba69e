/**
 * The render floor: what any kernel-api that follows the architecture must at least do for
 * a cold render, and nothing more — read the request, spend one budget unit in Redis (one INCR)
 * before evaluating, evaluate off the request thread (one worker building the gear directly with
 * manifold-3d), encode the mesh in the kernel's wire format, and answer — compressed as the
 * kernel compresses a miss, with its coder (lib/render/coded_prefix.ts): gzip when the request
 * takes gzip, else the coding it prefers, on the request thread, once per build and coding;
 * concurrent identical requests share one build (single flight). With `workers` > 1
 * (render-capacity) each build goes to the worker with the fewest builds in hand, as the kernel's
 * pool hands them out. No token, origin, template or schema checks, no DAG walk, no cache lookups,
 * no logging or metrics. render-cold and render-flight measure it next to the real kernel-api, so a
 * target this floor misses is the machine's, not the product's.
 *
 * Requests: POST `{values, dag}` (`values` the gear's parameters; `dag` is ignored and only makes
 * the request as large as a real render request).
 */
import { createClient } from "redis";
import type { GearValues } from "./direct_gear.ts";
import type { FloorJob, FloorReply } from "./floor_render_worker.ts";
import { type BareServer, serveBare } from "./bare_server.ts";
import { acceptedCodings } from "../lib/http/content_coding.ts";
import { CodedPrefix } from "../lib/render/coded_prefix.ts";

/** Builds kept for identical requests that arrive after their flight landed. */
const KEPT_BUILDS = 64;

/** A running floor server. */
export interface FloorRenderServer extends BareServer {
  /** Gear builds run so far (a single-flight burst costs one). */
  builds(): number;
  /**
   * Requests answered from a build that had landed before they arrived (what the kernel answers
   * from L1): a burst with any was spread out past its one build.
   */
  lateAnswers(): number;
}

/** Starts the floor on an ephemeral 127.0.0.1 port, with its `workers` (default 1) warm. */
export async function startFloorRenderServer(
  options: { redisUrl: string; counterKey: string; workers?: number },
): Promise<FloorRenderServer> {
  const redis = createClient({ url: options.redisUrl });
  redis.on("error", (err: Error) => console.error("render floor: redis error", err.message));
  await redis.connect();
  const waiting = new Map<number, (json: string) => void>();
  const workers = await Promise.all(
    Array.from({ length: options.workers ?? 1 }, async () => {
      const worker = new Worker(new URL("./floor_render_worker.ts", import.meta.url), {
        type: "module",
      });
      const held = { worker, inHand: 0 };
      await new Promise<void>((ready) => {
        worker.onmessage = (event: MessageEvent<FloorReply | "ready">) => {
          if (event.data === "ready") return ready();
          held.inHand--;
          waiting.get(event.data.id)?.(event.data.json);
          waiting.delete(event.data.id);
        };
      });
      return held;
    }),
  );
  let nextId = 1;
  let buildCount = 0;
  let lateCount = 0;
  const build = (values: GearValues) =>
    new Promise<string>((resolve) => {
      buildCount++;
      const job: FloorJob = { id: nextId++, values };
      waiting.set(job.id, resolve);
      const least = workers.reduce((a, b) => (b.inHand < a.inHand ? b : a));
      least.inHand++;
      least.worker.postMessage(job);
    });
  /** A build's answer, and its bytes in each coding asked for so far (compressed once each). */
  type Answer = { json: string; coded: Map<string, Uint8Array<ArrayBuffer>> };
  /** A build's answer on its way, and whether it has landed. */
  type Flight = { answer: Promise<Answer>; landed: boolean };
  const answers = new Map<string, Flight>();

  const handler = async (req: Request): Promise<Response> => {
    const text = await req.text();
    const { values } = JSON.parse(text) as { values: GearValues };
    await redis.incr(options.counterKey);
    let flight = answers.get(text);
    if (flight?.landed) lateCount++;
    if (!flight) {
      const started: Flight = {
        answer: build(values).then((members) => {
          started.landed = true;
          return { json: `{"cache":"miss",${members.slice(1)}`, coded: new Map() };
        }),
        landed: false,
      };
      answers.set(text, flight = started);
      if (answers.size > KEPT_BUILDS) answers.delete(answers.keys().next().value!);
    }
    const { json, coded } = await flight.answer;
    const accepted = acceptedCodings(req.headers.get("accept-encoding"));
    const coding = accepted.includes("gzip") ? "gzip" : accepted[0] ?? null;
    if (coding === null) {
      return new Response(json, { headers: { "content-type": "application/json" } });
    }
    let bytes = coded.get(coding);
    if (!bytes) {
      bytes = CodedPrefix.compress(new TextEncoder().encode(json), coding).finish("");
      coded.set(coding, bytes);
    }
    return new Response(bytes, {
      headers: {
        "content-type": "application/json",
        "content-encoding": coding,
        "vary": "Accept-Encoding",
      },
    });
  };

  const server = await serveBare(handler, "/render", async () => {
    for (const { worker } of workers) worker.terminate();
    await redis.close();
  });
  return { ...server, builds: () => buildCount, lateAnswers: () => lateCount };
}
