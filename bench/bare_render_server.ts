/**
 * The cache-hit render baseline: a bare `Deno.serve` handler doing the irreducible work of a
 * cache hit — read the body, one Redis INCR (the budget), answer fixed bytes (a real L1-hit render
 * response) — and nothing else: no routing, token check, origin check, DAG validation, hashing,
 * CORS, logging or metrics.
 *
 * With `floor` it becomes the cache-hit floor (`Floor` in benchmark.ts): the same handler, but
 * doing what the issue mandates of every render besides that — the revocation lookup through the
 * kernel's own `RevocationReplica` (in memory, over a `:memory:` Deno KV log) and the budget spend
 * in Redis through its `RedisBudgetStore` instead of the INCR, and the kernel's response headers —
 * and still nothing else.
 */
import { createClient } from "redis";
import type { RedisClient } from "../lib/redis/client.ts";
import { RedisBudgetStore } from "../lib/render/budget.ts";
import { RevocationReplica } from "../lib/render/revocation_replica.ts";
import { type BareServer, serveBare } from "./bare_server.ts";

/** A running baseline server. */
export type BareRenderServer = BareServer;

/** Starts the baseline on an ephemeral 127.0.0.1 port; it answers every POST with `body`. */
export async function startBareRenderServer(options: {
  redisUrl: string;
  counterKey: string;
  body: Uint8Array<ArrayBuffer>;
  /** The `Content-Encoding` of `body`, when it is coded (the floor's headers carry their own). */
  contentEncoding?: string;
  /** Makes this the floor: the kernel's revocation and budget calls and headers. */
  floor?: {
    /** Where its revocation and budget keys live (put it under the bench prefix). */
    prefix: string;
    /** The kernel's response headers (a sample L1-hit response's; sent as they are). */
    headers: [string, string][];
  };
}): Promise<BareRenderServer> {
  const redis = createClient({ url: options.redisUrl });
  redis.on("error", (err: Error) => console.error("bare render server: redis error", err.message));
  await redis.connect();
  const { counterKey, body, floor } = options;
  const kv = floor && await Deno.openKv(":memory:");
  const revocations = kv && new RevocationReplica(kv);
  revocations?.start();
  const budgets = floor && new RedisBudgetStore(redis as RedisClient, floor.prefix);
  const token = { client_id: "floor-key", jti: crypto.randomUUID(), budget: 1_000_000_000 };
  const exp = Math.floor(Date.now() / 1000) + 3600;
  await budgets?.open(token.jti, token.budget, exp);
  const headers: [string, string][] = floor?.headers ?? [
    ["content-type", "application/json"],
    ["cache-control", "no-store"],
    ...(options.contentEncoding
      ? [["content-encoding", options.contentEncoding] as [string, string]]
      : []),
  ];
  const handler = async (req: Request): Promise<Response> => {
    await req.arrayBuffer();
    if (revocations && budgets) {
      const [revoked, spent] = await Promise.all([
        revocations.isRevoked(token),
        budgets.spend(token.jti, token.budget, exp),
      ]);
      if (revoked || !spent.allowed) return new Response("refused", { status: 403 });
    } else {
      await redis.incr(counterKey);
    }
    return new Response(body, { headers });
  };
  return await serveBare(handler, "/render", async () => {
    await revocations?.stop();
    kv?.close();
    await redis.close();
  });
}
