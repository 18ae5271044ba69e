/**
 * The mint baseline: a bare `Deno.serve` handler doing the irreducible work of a mint (read the
 * JSON body, one Redis INCR, one Ed25519 signature over a token-sized payload with the hub's own
 * Ed25519 primitive, a JSON answer of the same shape) and nothing else: no routing, validation,
 * KV lookups, CORS, logging or metrics.
 *
 * With `floor` it becomes the mint floor (`Floor` in benchmark.ts): the same handler, but doing
 * what the issue mandates of every mint besides that — the per-key rate limit in Redis through
 * the hub's own rate-limiter-flexible limiter instead of the INCR, and the hub's response headers
 * (CORS, `RateLimit`, no-store, security headers, a request id) — and still nothing else.
 */
import { createClient } from "redis";
import type { RedisClient } from "../lib/redis/client.ts";
import { MintRateLimiter, rateLimitHeaders } from "../lib/hub/rate_limit.ts";
import { clientIpRateLimitHeaders, clientIpWindow } from "../lib/hub/client_ip_limit.ts";
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
  /** Makes this the mint floor: the hub's limiter and headers instead of the INCR. */
  floor?: {
    /** Where the floor's limiter keeps its counters (put it under the bench prefix). */
    limiterPrefix: string;
    /** Every request consumes one point of its `keyId` under this policy. */
    policy: { points: number; durationSeconds: number };
    /** The hub's response headers (a sample response's; the floor sends them all, with a fresh
     * request id and its own `RateLimit` values). */
    headers: [string, string][];
  };
}

const encoder = new TextEncoder();

/** Starts the baseline (or, with `floor`, the floor) on an ephemeral 127.0.0.1 port. */
export async function startBareMintServer(options: BareMintOptions): Promise<BareMintServer> {
  const redis = createClient({ url: options.redisUrl });
  redis.on("error", (err: Error) => console.error("bare mint server: redis error", err.message));
  await redis.connect();
  const { signing, counterKey, floor } = options;
  const limiter = floor &&
    new MintRateLimiter({ redis: redis as RedisClient, prefix: floor.limiterPrefix });

  const handler = async (req: Request): Promise<Response> => {
    const body = await req.json() as { keyId: string; projectId: string };
    // The hub's two windows (this client network's, then the key's) in its one Redis call.
    const limited = limiter
      ? await limiter.consumeAll(body.keyId, [
        clientIpWindow("127.0.0.1", floor!.policy),
        { policy: floor!.policy },
      ])
      : undefined;
    if (!limiter) await redis.incr(counterKey);
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
    const answer = { token, expiresAt: claims.exp, mode: "publishable" };
    if (!floor || !limited) return Response.json(answer);
    const headers = new Headers(floor.headers);
    headers.set("x-request-id", crypto.randomUUID());
    const [ip, key] = limited;
    for (
      const [name, value] of Object.entries(clientIpRateLimitHeaders(ip, rateLimitHeaders(key)))
    ) {
      headers.set(name, value);
    }
    return new Response(JSON.stringify(answer), { headers });
  };

  return await serveBare(handler, "/mint", () => redis.close());
}
