/**
 * The mint baseline: a bare `Deno.serve` handler doing the irreducible work of a mint (read the
 * JSON body, one Redis INCR, one Ed25519 signature over a token-sized payload with the hub's own
 * Ed25519 primitive, a JSON answer of the same shape) and nothing else: no routing, validation,
 * KV lookups, CORS, logging or metrics.
 */
import { createClient } from "redis";
import { encodeBase64Url } from "../lib/token/base64url.ts";
import { signEd25519 } from "../lib/token/ed25519.ts";
import { type BareServer, serveBare } from "./bare_server.ts";

/** A running baseline server; POST `{keyId, projectId}` to its `url`. */
export type BareMintServer = BareServer;

/** Where the baseline counts and what it signs with. */
export interface BareMintOptions {
  redisUrl: string;
  /** The Redis key the baseline INCRs (put it under the bench prefix so cleanup finds it). */
  counterKey: string;
  /** The signing key; pass the real hub's so both sides sign with the same key. */
  signing: { kid: string; privateKey: CryptoKey };
}

const encoder = new TextEncoder();

/** Starts the baseline on an ephemeral 127.0.0.1 port. */
export async function startBareMintServer(options: BareMintOptions): Promise<BareMintServer> {
  const redis = createClient({ url: options.redisUrl });
  redis.on("error", (err: Error) => console.error("bare mint server: redis error", err.message));
  await redis.connect();
  const { signing, counterKey } = options;

  const handler = async (req: Request): Promise<Response> => {
    const body = await req.json() as { keyId: string; projectId: string };
    await redis.incr(counterKey);
    const iat = Math.floor(Date.now() / 1000);
    const claims = {
      iss: "hub",
      aud: "kernel-api",
      sub: `anon_${crypto.randomUUID().slice(0, 24)}`,
      partner: body.keyId,
      client_id: body.keyId,
      project: body.projectId,
      origin: req.headers.get("origin"),
      jti: crypto.randomUUID().replaceAll("-", ""),
      budget: null,
      iat,
      exp: iat + 1800,
      kid: signing.kid,
    };
    const input = "sv1." + encodeBase64Url(encoder.encode(JSON.stringify(claims)));
    // The same Ed25519 primitive as the hub (lib/token/ed25519.ts), so the gap is the hub's own.
    const signature = signEd25519(signing.privateKey, encoder.encode(input));
    const token = input + "." + encodeBase64Url(signature);
    return Response.json({ token, expiresAt: claims.exp, mode: "publishable" });
  };

  return await serveBare(handler, "/mint", () => redis.close());
}
