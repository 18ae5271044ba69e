/**
 * The hosted configurator's postMessage API (docs/embedding.md): the iframe talks to exactly one
 * parent origin, and only when that origin is on the key's allowlist.
 *
 * The parent origin comes from `location.ancestorOrigins[0]` (set by the browser; the parent cannot
 * forge it), else from `document.referrer`. Either way it must be one of the key's allowed origins
 * (the server put them in the page) — the same list the page's CSP `frame-ancestors` enforces, so
 * a page that loaded at all is framed by one of them. Outgoing messages use that exact origin as
 * `targetOrigin` (never `*`); incoming ones must come from that origin and from `window.parent`.
 *
 * Runs in browsers: no Deno APIs here.
 */

/** Messages the configurator sends to its parent (`type` is namespaced with `cad:`). */
export type OutgoingMessage =
  | { type: "cad:ready"; project: string; version: number; values: Record<string, unknown> }
  | { type: "cad:change"; values: Record<string, unknown> }
  | {
    type: "cad:rendered";
    dagHash: string;
    meshes: string[];
    bbox: { min: number[]; max: number[] };
    triangles: number;
    values: Record<string, unknown>;
  }
  | {
    type: "cad:configuration";
    requestId?: string;
    configuration?: string;
    payload?: Record<string, unknown>;
    error?: string;
  }
  | {
    type: "cad:shareUrl";
    requestId?: string;
    /** The share link: `baseUrl` (or the parent page) with the `cad` parameter. */
    url?: string;
    /** The `cad` parameter's value alone, for a parent that builds its own links. */
    value?: string;
    error?: string;
  }
  | {
    type: "cad:snapshot";
    requestId?: string;
    /** The PNG (structured-cloned: `URL.createObjectURL(png)` or upload it as is). */
    png?: Blob;
    width?: number;
    height?: number;
    error?: string;
    /** `SnapshotError` code when it failed: `invalid_snapshot_options`, `no_scene`, … */
    code?: string;
  }
  | { type: "cad:error"; code: string; detail: string };

/** Messages the parent may send. */
export type IncomingMessage =
  | { type: "cad:setParameters"; values: Record<string, unknown> }
  | { type: "cad:getConfiguration"; requestId?: string }
  | { type: "cad:getShareUrl"; requestId?: string; baseUrl?: string }
  | {
    type: "cad:snapshot";
    requestId?: string;
    width?: number;
    height?: number;
    background?: string;
  };

/** Where the bridge lives (the iframe's window, passed in so tests can hand a fake). */
export interface BridgeWindow {
  parent: unknown;
  location: { ancestorOrigins?: { length: number; [i: number]: string } };
  document: { referrer: string };
  addEventListener(type: "message", fn: (e: MessageEvent) => void): void;
  removeEventListener(type: "message", fn: (e: MessageEvent) => void): void;
}

/**
 * The parent's origin when it is on `allowed`, else null (not framed, or framed by a stranger).
 *
 * @example
 * ```ts
 * resolveParentOrigin(window, ["https://shop.example.com"]); // "https://shop.example.com"
 * ```
 */
export function resolveParentOrigin(win: BridgeWindow, allowed: readonly string[]): string | null {
  if (win.parent === win) return null;
  const ancestors = win.location.ancestorOrigins;
  let candidate: string | null = null;
  if (ancestors && ancestors.length > 0) candidate = ancestors[0];
  else if (win.document.referrer) {
    try {
      candidate = new URL(win.document.referrer).origin;
    } catch {
      candidate = null;
    }
  }
  return candidate !== null && allowed.includes(candidate) ? candidate : null;
}

/**
 * Sends to and receives from the one allowed parent.
 *
 * @example
 * ```ts
 * const bridge = new EmbedBridge(window, parentOrigin, (msg) => { ... });
 * bridge.send({ type: "cad:change", values });
 * ```
 */
export class EmbedBridge {
  readonly parentOrigin: string;
  readonly #win: BridgeWindow;
  readonly #listener: (e: MessageEvent) => void;

  /** Listens for messages from `parentOrigin` in `win.parent`; others are ignored. */
  constructor(
    win: BridgeWindow,
    parentOrigin: string,
    onMessage: (message: IncomingMessage) => void,
  ) {
    this.#win = win;
    this.parentOrigin = parentOrigin;
    this.#listener = (e: MessageEvent) => {
      if (e.origin !== parentOrigin || e.source !== win.parent) return;
      const message = parseIncoming(e.data);
      if (message) onMessage(message);
    };
    win.addEventListener("message", this.#listener);
  }

  /** Posts `message` to the parent, addressed to its exact origin. */
  send(message: OutgoingMessage): void {
    (this.#win.parent as Window).postMessage(message, this.parentOrigin);
  }

  /** Stops listening. */
  dispose(): void {
    this.#win.removeEventListener("message", this.#listener);
  }
}

/** The message if it is one the API knows, with the expected member types; else null. */
export function parseIncoming(data: unknown): IncomingMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const m = data as Record<string, unknown>;
  if (m.type === "cad:setParameters") {
    const values = m.values;
    if (typeof values !== "object" || values === null || Array.isArray(values)) return null;
    return { type: "cad:setParameters", values: { ...values } as Record<string, unknown> };
  }
  if (m.requestId !== undefined && typeof m.requestId !== "string") return null;
  const requestId = m.requestId as string | undefined;
  if (m.type === "cad:getConfiguration") return { type: "cad:getConfiguration", requestId };
  if (m.type === "cad:getShareUrl") {
    if (m.baseUrl !== undefined && !isWebUrl(m.baseUrl)) return null;
    return { type: "cad:getShareUrl", requestId, baseUrl: m.baseUrl as string | undefined };
  }
  if (m.type === "cad:snapshot") {
    // Sizes and colour are checked where the snapshot is made (a clear error answers them).
    const out: IncomingMessage = { type: "cad:snapshot", requestId };
    for (const key of ["width", "height"] as const) {
      if (m[key] === undefined) continue;
      if (typeof m[key] !== "number") return null;
      out[key] = m[key] as number;
    }
    if (m.background !== undefined) {
      if (typeof m.background !== "string") return null;
      out.background = m.background;
    }
    return out;
  }
  return null;
}

/** Whether `value` is an absolute http(s) URL (a share link's base). */
function isWebUrl(value: unknown): value is string {
  if (typeof value !== "string" || value.length > 2000) return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}
