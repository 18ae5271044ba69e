/** Opening the durable store. */
import { dirname } from "node:path";
import { withKvBusyRetry } from "./kv_busy_retry.ts";

/**
 * Opens Deno KV at `path` (a file, `:memory:`, or a KV Connect URL), creating a file's folder; a
 * file, which other processes may share, gets its busy refusals retried.
 */
export async function openKv(path: string): Promise<Deno.Kv> {
  const isFile = path !== ":memory:" && !/^https?:\/\//.test(path);
  if (isFile) await Deno.mkdir(dirname(path), { recursive: true });
  const kv = await Deno.openKv(path);
  return isFile ? withKvBusyRetry(kv) : kv;
}
