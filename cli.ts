/** Operator CLI entry point: `deno task hub <command>`; see `lib/hub/cli.ts` for the commands. */
import { loadConfig } from "./lib/config.ts";
import { cliErrorMessage, CliHelp, runCli } from "./lib/hub/cli.ts";
import { openKv } from "./lib/store/kv.ts";

const config = loadConfig();
const kv = await openKv(config.kvPath);
try {
  // Only Deno KV: revocations reach the render nodes through its revocation log, so the CLI
  // needs no REDIS_URL (docs/tokens.md, Revocation).
  const result = await runCli(kv, Deno.args);
  console.log(JSON.stringify(result));
} catch (err) {
  if (err instanceof CliHelp) console.log(err.message);
  else {
    console.error(cliErrorMessage(err));
    Deno.exitCode = 2;
  }
} finally {
  kv.close();
}
