/**
 * A real TCP proxy in front of a test server that can lose answers the way a dying node or a load
 * balancer does: per request it forwards and relays (`pass`), closes the connection without
 * forwarding (`refuse`), forwards and then closes without relaying the answer (`drop`: the render
 * was served and paid for, the client never hears of it), or answers a proxy's own 502 page
 * (`bad_gateway`). One request per connection (`Connection: close`), HTTP/1.1 on loopback.
 */

/** What the proxy does with one request. */
export type ProxyAction = "pass" | "refuse" | "drop" | "bad_gateway";

/** One request the proxy saw. */
export interface ProxiedRequest {
  method: string;
  path: string;
  headers: Headers;
  action: ProxyAction;
}

/** A running proxy. */
export interface FlakyProxy {
  url: string;
  seen: ProxiedRequest[];
  close(): Promise<void>;
}

const CRLF2 = new Uint8Array([13, 10, 13, 10]);

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Reads one HTTP/1.1 request (head and a Content-Length body) from `conn`. */
async function readRequest(conn: Deno.Conn) {
  let buf = new Uint8Array(0);
  const chunk = new Uint8Array(64 * 1024);
  const more = async () => {
    const n = await conn.read(chunk);
    if (n === null) throw new Error("connection closed mid-request");
    const next = new Uint8Array(buf.length + n);
    next.set(buf);
    next.set(chunk.subarray(0, n), buf.length);
    buf = next;
  };
  while (indexOf(buf, CRLF2) < 0) await more();
  const headEnd = indexOf(buf, CRLF2);
  const lines = new TextDecoder().decode(buf.subarray(0, headEnd)).split("\r\n");
  const [method, path] = lines[0].split(" ");
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const length = Number(headers.get("content-length") ?? 0);
  while (buf.length < headEnd + 4 + length) await more();
  return { method, path, headers, body: buf.slice(headEnd + 4, headEnd + 4 + length) };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

/** Writes `res` (its body fully read) as an HTTP/1.1 response that closes the connection. */
async function writeResponse(conn: Deno.Conn, res: Response): Promise<void> {
  const body = new Uint8Array(await res.arrayBuffer());
  let head = `HTTP/1.1 ${res.status} ${res.statusText || "X"}\r\n`;
  for (const [name, value] of res.headers) {
    if (["content-length", "transfer-encoding", "connection", "content-encoding"].includes(name)) {
      continue;
    }
    head += `${name}: ${value}\r\n`;
  }
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  await writeAll(conn, new TextEncoder().encode(head));
  await writeAll(conn, body);
}

/**
 * Starts a proxy to `upstream`; `decide` picks the action of each request (default `pass`).
 *
 * @example
 * ```ts
 * let renders = 0;
 * const proxy = startFlakyProxy(server.url, (req) =>
 *   req.path.endsWith("/render") && renders++ === 0 ? "drop" : "pass");
 * ```
 */
export function startFlakyProxy(
  upstream: string,
  decide: (req: { method: string; path: string; headers: Headers }) => ProxyAction,
): FlakyProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen: ProxiedRequest[] = [];
  const conns = new Set<Promise<void>>();
  const serveOne = async (conn: Deno.Conn) => {
    try {
      const req = await readRequest(conn);
      const action = decide(req);
      seen.push({ method: req.method, path: req.path, headers: req.headers, action });
      if (action === "refuse") return;
      if (action === "bad_gateway") {
        await writeResponse(
          conn,
          new Response("<html><body><h1>502 Bad Gateway</h1></body></html>", {
            status: 502,
            headers: { "content-type": "text/html" },
          }),
        );
        return;
      }
      const headers = new Headers(req.headers);
      for (const name of ["host", "connection", "content-length"]) headers.delete(name);
      // Relayed as is: the proxy does not re-encode bodies.
      headers.set("accept-encoding", "identity");
      const res = await fetch(`${upstream}${req.path}`, {
        method: req.method,
        headers,
        body: req.body.length ? req.body : undefined,
      });
      if (action === "drop") {
        await res.body?.cancel();
        return;
      }
      await writeResponse(conn, res);
    } catch {
      // A client that went away: nothing to relay.
    } finally {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) {
      const p = serveOne(conn);
      conns.add(p);
      p.finally(() => conns.delete(p));
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    async close() {
      listener.close();
      await accepting.catch(() => {});
      await Promise.allSettled([...conns]);
    },
  };
}
