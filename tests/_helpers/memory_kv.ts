/** A test body given an in-memory Deno KV, closed afterwards whatever the body does. */
export function withMemoryKv(fn: (kv: Deno.Kv) => Promise<void>): () => Promise<void> {
  return async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      await fn(kv);
    } finally {
      kv.close();
    }
  };
}
