/** Entry point: `deno task start`. Configuration comes from the environment (see README). */
import { loadConfig } from "./lib/config.ts";
import { startServer } from "./lib/app/server.ts";
import manifest from "./manifest.gen.ts";

const config = loadConfig();
const server = await startServer(config, manifest);
const { log } = server.deps;
log.info("listening", {
  url: server.url,
  role: config.role,
  publicUrl: config.publicUrl,
  kv: config.kvPath,
});

if (server.demo) {
  const { keyId, partnerId, projectSlug } = server.demo;
  const origin = `http://localhost:${new URL(server.url).port}`;
  console.log(`
  CAD configurator hub + kernel on ${server.url}  (role: ${config.role})

  Demo partner key id (publishable): ${keyId}
  Mint a session token with the browser flow:

    curl -s -X POST ${server.url}/api/v1/sdk/session-tokens \\
      -H 'Origin: ${origin}' -H 'Content-Type: application/json' \\
      -d '{"keyId":"${keyId}","projectId":"${projectSlug}"}'

  Demo partner: ${partnerId}. For the server flow create a key with a secret:

    deno task hub key create --partner ${partnerId} --label backend \\
      --origin ${origin} --project ${projectSlug}

  (deno task hub --help lists every command.)
  Open ${server.url}/ for the demo page.
`);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    log.info("shutting down", { signal });
    await server.close();
    Deno.exit(0);
  });
}
