/**
 * The cache-hit render baseline: a bare `Deno.serve` handler doing the irreducible work of a
 * cache hit — read the body, one Redis INCR (the budget), answer fixed bytes (a real L1-hit render
 * response) — and nothing else: no routing, token check, origin check, DAG validation, hashing,
 * CORS, logging or metrics.
 */
import { createClient } from "redis";
import { type BareServer, serveBare } from "./bare_server.ts";

/** A running baseline server. */
export type BareRenderServer = BareServer;

/** Starts the baseline on an ephemeral 127.0.0.1 port; it answers every POST with `body`. */
export async function startBareRenderServer(options: {
  redisUrl: string;
  counterKey: string;
  body: Uint8Array<ArrayBuffer>;
}): Promise<BareRenderServer> {
  const redis = createClient({ url: options.redisUrl });
  redis.on("error", (err: Error) => console.error("bare render server: redis error", err.message));
  await redis.connect();
  const { counterKey, body } = options;
  const handler = async (req: Request): Promise<Response> => {
    await req.arrayBuffer();
    await redis.incr(counterKey);
    return new Response(body, {
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  };
  return await serveBare(handler, "/render", () => redis.close());
}
