/**
 * (a) `verifyToken` against one raw WebCrypto Ed25519 verify of exactly the bytes an `sv1.` token
 * signs, with the signature already decoded (the baseline). `verifyToken` verifies through
 * `node:crypto` (lib/token/ed25519.ts), which is faster than WebCrypto in Deno, so the run also
 * measures a raw `node:crypto` verify of the same bytes: the gap to that one is everything
 * `verify.ts` adds (splitting, base64url, strict JSON, claim checks, key lookup).
 */
import { KeyObject, verify as nodeVerify } from "node:crypto";
import type { SessionClaims } from "../lib/token/claims.ts";
import { Keyring } from "../lib/token/keyring.ts";
import { signToken } from "../lib/token/sign.ts";
import { SigningKeyStore } from "../lib/token/signing_keys.ts";
import { verifyToken } from "../lib/token/verify.ts";
import type { Benchmark, BenchResult } from "./benchmark.ts";
import { formatRate } from "./report.ts";
import { alternateRounds } from "./rounds.ts";
import { median } from "./stats.ts";

const WARMUP_OPS = 3000;
// Many short rounds rather than a few long ones: on a shared VM the speed of both sides drifts by
// tens of percent within seconds, and short alternating rounds see the same drift.
const ROUNDS = 40;
const OPS_PER_ROUND = 500;
const TARGET = 1;
const ED25519 = { name: "Ed25519" } as const;

/** The operations per second of `ops` sequential, awaited calls of `fn`. */
export async function opsPerSecond(fn: () => Promise<unknown>, ops: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < ops; i++) await fn();
  return ops / ((performance.now() - start) / 1000);
}

function hex(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Claims shaped like a browser-flow mint's (anonymous sub, random jti, 30 min lifetime). */
export function realisticClaims(kid: string, now: number): SessionClaims {
  return {
    iss: "hub",
    aud: "kernel-api",
    sub: `anon_${hex(12)}`,
    partner: `prt_${hex(10)}`,
    client_id: `k${hex(10)}`,
    project: "oak-dining-chair",
    origin: "https://shop.example-furniture.com",
    jti: hex(16),
    budget: 200,
    iat: now,
    exp: now + 1800,
    kid,
  };
}

async function run(progress: (line: string) => void): Promise<BenchResult> {
  const kv = await Deno.openKv(":memory:");
  try {
    const keyring = await Keyring.load(new SigningKeyStore(kv, Date.now));
    const signing = keyring.signingKey();
    const publicKey = await keyring.resolve(signing.kid);
    if (!publicKey) throw new Error("the keyring does not resolve its own signing kid");
    const now = Math.floor(Date.now() / 1000);
    const token = signToken(realisticClaims(signing.kid, now), signing);
    const dot = token.lastIndexOf(".");
    const signedBytes = new TextEncoder().encode(token.slice(0, dot));
    const signature = Uint8Array.fromBase64(token.slice(dot + 1), { alphabet: "base64url" });

    const baseline = async () => {
      if (!(await crypto.subtle.verify(ED25519, publicKey, signature, signedBytes))) {
        throw new Error("raw verify rejected the token");
      }
    };
    const nodeKey = KeyObject.from(publicKey);
    // deno-lint-ignore require-await
    const rawNode = async () => {
      if (!nodeVerify(null, signedBytes, nodeKey, signature)) {
        throw new Error("raw node:crypto verify rejected the token");
      }
    };
    // A synchronous resolver, as a warm `Keyring` cache would be if it answered without a Promise.
    const resolveKey = () => publicKey;
    const candidate = () => verifyToken(token, resolveKey, { now });

    await baseline();
    await rawNode();
    await candidate();
    await opsPerSecond(baseline, WARMUP_OPS);
    await opsPerSecond(rawNode, WARMUP_OPS);
    await opsPerSecond(candidate, WARMUP_OPS);
    const nodeRates: number[] = [];
    const rounds = await alternateRounds(
      ROUNDS,
      () => opsPerSecond(baseline, OPS_PER_ROUND),
      async () => {
        // The node:crypto floor is measured inside the candidate's turn, right before it.
        nodeRates.push(await opsPerSecond(rawNode, OPS_PER_ROUND));
        return await opsPerSecond(candidate, OPS_PER_ROUND);
      },
      (round, b, c) => {
        if (round % 10 === 0) {
          progress(
            `verify round ${round}/${ROUNDS}: raw ${formatRate(b)} ops/s, verifyToken ${
              formatRate(c)
            } ops/s`,
          );
        }
      },
    );
    const raw = median(rounds.baseline);
    const sv1 = median(rounds.candidate);
    const node = median(nodeRates);
    const nodeRatios = rounds.candidate.map((c, i) => c / nodeRates[i]);
    const ratios = rounds.candidate.map((c, i) => c / rounds.baseline[i]);
    const range = (xs: number[]) => `${formatRate(Math.min(...xs))}–${formatRate(Math.max(...xs))}`;
    const details = [
      `per op: raw verify ${(1e6 / raw).toFixed(1)} µs, verifyToken ${(1e6 / sv1).toFixed(1)} µs ` +
      `(+${(1e6 / sv1 - 1e6 / raw).toFixed(1)} µs per token)`,
      `per-round ratio min ${Math.min(...ratios).toFixed(2)} / median ${
        median(ratios).toFixed(2)
      } / ` +
      `max ${Math.max(...ratios).toFixed(2)}; raw ${range(rounds.baseline)} ops/s, ` +
      `verifyToken ${range(rounds.candidate)} ops/s across rounds`,
      `raw node:crypto verify (the primitive verifyToken calls) ${formatRate(node)} ops/s, ` +
      `${(1e6 / node).toFixed(1)} µs; verifyToken ÷ it: median per-round ratio ${
        median(nodeRatios).toFixed(2)
      } (+${(1e6 / sv1 - 1e6 / node).toFixed(1)} µs per token of parsing and checks)`,
    ];
    return {
      title: "verify",
      unit: "ops/s",
      baseline: { label: "raw WebCrypto", value: raw },
      candidate: { label: "sv1 verifyToken", value: sv1 },
      target: TARGET,
      summary:
        `${token.length}-char token, ${ROUNDS} rounds × ${OPS_PER_ROUND} sequential ops, medians`,
      details,
      problems: [],
    };
  } finally {
    kv.close();
  }
}

/** sv1 `verifyToken` ÷ raw WebCrypto Ed25519 verify of the same bytes; target ≥ 1. */
export const verifyBench: Benchmark = {
  name: "verify",
  description: "sv1 verifyToken vs raw WebCrypto Ed25519 verify of the same bytes",
  run,
};
