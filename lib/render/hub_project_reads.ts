/**
 * The public project read (`GET /api/v1/projects/<slug>`) on a kernel node. The browser's project
 * loader asks the render service for it (lib/client/project_loader.ts), but a kernel node holds no
 * Deno KV: it forwards the request to the hub with its validators and hands back the hub's answer.
 * The last good answers are kept (bounded) and served while the hub does not answer, so a page
 * that opens a project this node has served keeps working through a hub outage.
 */
import { LRUCache } from "lru-cache";
import type { HubLink } from "./hub_link.ts";
import { AppError } from "../http/problem.ts";

/** Answer headers passed through from the hub. */
const PASSED = [
  "content-type",
  "etag",
  "cache-control",
  "access-control-allow-origin",
  "access-control-expose-headers",
];

interface Kept {
  body: Uint8Array<ArrayBuffer>;
  headers: [string, string][];
}

/** Forwards project reads to the hub, keeping the last good answers for outages. */
export class HubProjectReads {
  readonly #hub: HubLink;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;
  readonly #kept = new LRUCache<string, Kept>({
    maxSize: 16 * 1024 * 1024,
    sizeCalculation: (k) => k.body.byteLength + 64,
  });

  /** Forwards to the hub behind `hub`. */
  constructor(hub: HubLink, options: { fetch?: typeof fetch; timeoutMs?: number } = {}) {
    this.#hub = hub;
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 5000;
  }

  /**
   * The hub's answer to `pathAndQuery` (a path under `/api/v1/projects/`), or the last good one
   * when the hub does not answer; `service_unavailable` when there is none.
   */
  async read(pathAndQuery: string, ifNoneMatch?: string): Promise<Response> {
    let res: Response;
    try {
      res = await this.#fetch(`${this.#hub.url}${pathAndQuery}`, {
        // Identity: the answer is passed on with the hub's ETag, and this node's own compression
        // codes it (and suffixes that ETag) for the browser; a coded ETag would be coded twice.
        headers: {
          "accept-encoding": "identity",
          ...(ifNoneMatch ? { "if-none-match": ifNoneMatch } : {}),
        },
        redirect: "manual",
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      if (res.status >= 500) throw new Error(`the hub answered HTTP ${res.status}`);
      const headers = new Headers();
      for (const name of PASSED) {
        const v = res.headers.get(name);
        if (v !== null) headers.set(name, v);
      }
      const body = new Uint8Array(await res.arrayBuffer());
      if (res.status === 200) this.#kept.set(pathAndQuery, { body, headers: [...headers] });
      return new Response(res.status === 304 ? null : body, { status: res.status, headers });
    } catch (err) {
      const kept = this.#kept.get(pathAndQuery);
      if (!kept) {
        throw new AppError("service_unavailable", "The hub cannot be reached; retry shortly.", {
          cause: err,
          headers: { "Retry-After": "1" },
        });
      }
      const headers = new Headers(kept.headers);
      if (ifNoneMatch !== undefined && ifNoneMatch === headers.get("etag")) {
        return new Response(null, { status: 304, headers });
      }
      return new Response(kept.body, { status: 200, headers });
    }
  }
}
