/**
 * SHA-256 as lowercase hex, for DAG, cache-key and mesh hashes. Where the runtime has Node's
 * built-in modules (Deno: the server and its render workers) the digest is computed synchronously
 * with `node:crypto`; a WebCrypto digest is a round trip through a thread pool, and a render
 * hashes its DAG, its cache key and every mesh. Browsers use WebCrypto.
 *
 * Runs in browsers too: `node:crypto` is looked up at run time, never imported, so bundles stay
 * browser-safe.
 */

/** The part of `node:crypto` used here. */
interface NodeHash {
  createHash(algorithm: "sha256"): {
    update(data: string | Uint8Array, encoding?: "utf8"): { digest(encoding: "hex"): string };
  };
}

const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
  .process?.getBuiltinModule?.("node:crypto") as NodeHash | undefined;

const encoder = new TextEncoder();

/**
 * Lowercase hex SHA-256 of a string's UTF-8 bytes or of bytes.
 *
 * @example
 * ```ts
 * await sha256HexOf("abc"); // "ba7816bf…15ad"
 * ```
 */
export async function sha256HexOf(data: string | Uint8Array): Promise<string> {
  if (nodeCrypto) {
    return typeof data === "string"
      ? nodeCrypto.createHash("sha256").update(data, "utf8").digest("hex")
      : nodeCrypto.createHash("sha256").update(data).digest("hex");
  }
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
