/** The listening part of the bare baselines: a `Deno.serve` on an ephemeral 127.0.0.1 port. */

/** A running baseline server. */
export interface BareServer {
  /** Where to send the baseline's requests. */
  url: string;
  /** Stops serving, then runs the baseline's own cleanup. */
  close(): Promise<void>;
}

/**
 * Serves `handler` on 127.0.0.1:0 and returns once listening; `url` is that origin plus `path`.
 *
 * @example
 * ```ts
 * const bare = await serveBare(() => new Response("ok"), "/ok", () => redis.close());
 * ```
 */
export async function serveBare(
  handler: (req: Request) => Response | Promise<Response>,
  path: string,
  cleanup: () => Promise<void>,
): Promise<BareServer> {
  let resolveListening: (addr: Deno.NetAddr) => void;
  const listening = new Promise<Deno.NetAddr>((r) => (resolveListening = r));
  const ac = new AbortController();
  const server = Deno.serve({
    port: 0,
    hostname: "127.0.0.1",
    signal: ac.signal,
    onListen: (addr) => resolveListening(addr as Deno.NetAddr),
  }, handler);
  const addr = await listening;
  return {
    url: `http://127.0.0.1:${addr.port}${path}`,
    async close() {
      ac.abort();
      await server.finished;
      await cleanup();
    },
  };
}
