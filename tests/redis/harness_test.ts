/**
 * The test harness's one-off Redis commands (`redisCommand`, used by the private server and the
 * local cluster helpers) settle against a server that is gone or stalled: a run once hung for
 * good when a cluster node exited as it started, because node-redis's default client reconnects
 * forever and the helper waited on its `connect()`.
 */
import assert from "node:assert/strict";
import { redisCommand } from "../_helpers/redis.ts";
import { freePort, PrivateRedis } from "../_helpers/redis_server.ts";

Deno.test("test harness - a one-off command to a port nobody listens on rejects", async () => {
  const url = `redis://127.0.0.1:${freePort()}`;
  await assert.rejects(redisCommand(url, ["PING"], 2000));
});

Deno.test("test harness - a one-off command to a stalled Redis rejects at its deadline, then works once resumed", async () => {
  const server = await PrivateRedis.start();
  try {
    assert.equal(await redisCommand(server.url, ["PING"]), "PONG");
    server.pause();
    await assert.rejects(redisCommand(server.url, ["PING"], 300), /no reply .* within 300 ms/);
    server.resume();
    assert.equal(await redisCommand(server.url, ["PING"]), "PONG");
  } finally {
    await server.stop();
  }
});
