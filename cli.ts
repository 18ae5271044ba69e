/** Operator CLI entry point: `deno task hub <command>`; see `lib/hub/cli.ts` for the commands. */
import { loadConfig } from "./lib/config.ts";
import { cliErrorMessage, runCli } from "./lib/hub/cli.ts";
import { Logger } from "./lib/ops/logger.ts";
import { connectRedis, type RedisClient } from "./lib/redis/client.ts";
import { RedisRevocationList } from "./lib/redis/revocation.ts";
import { openKv } from "./lib/store/kv.ts";

const config = loadConfig();
const kv = await openKv(config.kvPath);
let redis: RedisClient | undefined;
try {
  // Revocations must reach the render nodes, which read them from Redis when it is configured.
  if (config.redisUrl) {
    redis = await connectRedis(
      config.redisUrl,
      new Logger("error", (l) => console.error(l)),
    );
  }
  const revocations = redis ? new RedisRevocationList(redis, config.redisPrefix) : undefined;
  const result = await runCli(kv, Deno.args, { revocations });
  console.log(JSON.stringify(result));
} catch (err) {
  console.error(cliErrorMessage(err));
  Deno.exitCode = 2;
} finally {
  await redis?.close();
  kv.close();
}
