/** Entry point: `deno task start`. Configuration comes from the environment (see README). */
import { loadConfig } from "./lib/config.ts";
import { startServer } from "./lib/app/server.ts";
import { DEMO_STOREFRONT_PORT, demoStorefrontOrigins } from "./lib/hub/demo_seed.ts";
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

/** `deno` when it is on PATH (else the npx form the README uses), so printed lines run as shown. */
function denoCommand(): string {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (dir && Deno.statSync(`${dir}/deno`).isFile) return "deno";
    } catch {
      // not in this folder
    }
  }
  return "npx -y deno@2";
}

if (server.demo) {
  const { keyId, partnerId, projectSlug } = server.demo;
  const origin = `http://localhost:${new URL(server.url).port}`;
  const shop = demoStorefrontOrigins()[0];
  const deno = denoCommand();
  // The CLI must open the store this server uses: name it when it is not the default.
  const kv = Deno.env.get("KV_PATH") ? `KV_PATH=${shellWord(config.kvPath)} ` : "";
  console.log(`
  CAD configurator hub + kernel on ${server.url}  (role: ${config.role})

  Open ${server.url}/ : a live configurator of every example project, the docs, and sign-up.

  Demo partner: ${partnerId}
  Demo key id (publishable): ${keyId}

  Mint a session token with the browser flow:

    curl -s -X POST ${server.url}/api/v1/sdk/session-tokens \\
      -H 'Origin: ${origin}' -H 'Content-Type: application/json' \\
      -d '{"keyId":"${keyId}","projectId":"${projectSlug}"}'

  Run the example storefront on ${shop} (its origin is on the demo key). The first half
  creates a key with a secret for its server flow and pipes it over; the secret is shown nowhere:

    ${kv}${deno} task hub key create --partner ${partnerId} --label storefront-backend \\
      --origin ${shop} --project wall-bracket \\
      | ${deno} run -A examples/storefront/serve.ts --hub ${server.url} --key ${keyId} \\
      --port ${DEMO_STOREFRONT_PORT} --secret -

  Every operator command:

    ${kv}${deno} task hub --help
`);
}

/** `word` quoted for a POSIX shell when it needs to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    log.info("shutting down", { signal });
    await server.close();
    Deno.exit(0);
  });
}
