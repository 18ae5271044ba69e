/** Opening the durable store. */
import { dirname } from "node:path";

/** Opens Deno KV at `path` (a file, `:memory:`, or a KV Connect URL), creating a file's folder. */
export async function openKv(path: string): Promise<Deno.Kv> {
  if (path !== ":memory:" && !/^https?:\/\//.test(path)) {
    await Deno.mkdir(dirname(path), { recursive: true });
  }
  return await Deno.openKv(path);
}
