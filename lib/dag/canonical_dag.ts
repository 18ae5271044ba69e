/**
 * Canonical bytes and hashes of a DAG (docs/dag.md, "Substitution and hashing"). The DAG hash is
 * the SHA-256 of the RFC 8785 (JCS) serialization, so two DAGs that mean the same JSON hash the
 * same whatever their member order or number spelling; the browser and the kernel compute it with
 * this same code. Both cache levels key on `sha256(kernelVersion + "\n" + dagHash)`, so a kernel
 * upgrade never serves meshes an older kernel produced.
 *
 * Runs in browsers too: WebCrypto and TextEncoder there. Where the runtime has Node's built-in
 * modules (Deno, the server) SHA-256 is computed synchronously with `node:crypto` instead: a
 * WebCrypto digest is a round trip through a thread pool, and a render hashes three times.
 */

import canonicalize from "canonicalize";
import type { Dag } from "./dag_types.ts";
import { sha256HexOf } from "./sha256.ts";

/**
 * The RFC 8785 canonical JSON of any JSON value. Throws `TypeError` for values JSON cannot carry
 * canonically (NaN, Infinity, lone surrogates, cycles, `undefined` at the top).
 *
 * @example
 * ```ts
 * canonicalJson({ b: [1e21, 0.1], a: "é" }); // '{"a":"é","b":[1e+21,0.1]}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (err) {
    throw new TypeError(`not canonicalizable: ${err instanceof Error ? err.message : err}`);
  }
  if (text === undefined) throw new TypeError("not canonicalizable: no JSON representation");
  return text;
}

/**
 * The RFC 8785 canonical JSON of a DAG: member names sorted by UTF-16 code units, numbers in
 * ECMAScript shortest form, no whitespace.
 *
 * @example
 * ```ts
 * canonicalDagJson({ output: "out", dag: 1, nodes: {} }); // '{"dag":1,"nodes":{},"output":"out"}'
 * ```
 */
export function canonicalDagJson(dag: Dag): string {
  return canonicalJson(dag);
}

/** Lowercase hex SHA-256 of a string's UTF-8 bytes (`node:crypto` on the server, else WebCrypto). */
export function sha256Hex(text: string): Promise<string> {
  return sha256HexOf(text);
}

/**
 * The DAG hash: SHA-256 (hex) of the canonical UTF-8 bytes.
 *
 * @example
 * ```ts
 * await dagHash(finished); // "3f1c…" (64 hex digits)
 * ```
 */
export function dagHash(dag: Dag): Promise<string> {
  return sha256Hex(canonicalDagJson(dag));
}

/**
 * The render-cache key of a DAG for one kernel version: `sha256(kernelVersion + "\n" + dagHash)`.
 *
 * @example
 * ```ts
 * await cacheKey("manifold-3.2.1+k7", await dagHash(finished));
 * ```
 */
export function cacheKey(kernelVersion: string, dagHash: string): Promise<string> {
  return sha256Hex(`${kernelVersion}\n${dagHash}`);
}
