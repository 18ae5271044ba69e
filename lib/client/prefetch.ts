/**
 * Requests started before the configurator's code has arrived, and their adoption. The embed's
 * stable module (`/sdk/v1/embed.js`) starts, for each `<cad-configurator>` already in the page,
 * the two requests the element's clients make first — the token mint and the project — while the
 * element's bundle is still downloading (lib/sdk/early_requests.ts). When the element's clients
 * then send a request with the same method, URL and body (`prefetchedFetch`), they take the answer
 * of the one already sent instead of sending another: on a shopper's network that takes the mint's
 * round trip off the first model's path (docs/performance.md).
 *
 * Each started request is taken at most once, and only within `PREFETCH_MAX_AGE_MS` of its start
 * (a token's clock skew is measured from the moment its client asked). One that nothing took is
 * dropped then. The registry is a property of `globalThis` under a `Symbol.for` key, so the
 * stable module and the bundle, which are built apart, find the same one; the page's own scripts
 * could read it, as they could mint the same token with the same publishable keyId.
 *
 * Runs in browsers: no Deno APIs here.
 */

/** How long after its start a request's answer may still be adopted (ms). */
export const PREFETCH_MAX_AGE_MS = 10_000;

const REGISTRY = Symbol.for("cad-configurator.prefetched");

/** An answer read whole as it arrived: what a `Response` is made of again. */
interface ReadAnswer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: ArrayBuffer;
}

/** A request started early: when, until when it may be adopted, and its answer. */
interface Started {
  at: number;
  maxAgeMs: number;
  answer: Promise<ReadAnswer>;
}

/** Statuses whose responses have no body (the `Response` constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Started requests not taken yet, by `requestKey`, oldest first. */
type Registry = Map<string, Started[]>;

function registry(): Registry {
  const scope = globalThis as { [REGISTRY]?: Registry };
  return scope[REGISTRY] ??= new Map();
}

/** What makes two requests the same here: method, URL and (string) body. */
function requestKey(url: string, init: RequestInit = {}): string {
  const body = typeof init.body === "string" ? init.body : "";
  return `${(init.method ?? "GET").toUpperCase()} ${url}\n${body}`;
}

/**
 * Sends `url` with `init` (with `send`) now and keeps its answer for the first matching request of
 * a `prefetchedFetch` within `maxAgeMs`.
 */
export function prefetch(
  url: string,
  init: RequestInit,
  send: typeof fetch = fetch,
  maxAgeMs = PREFETCH_MAX_AGE_MS,
): void {
  const key = requestKey(url, init);
  // Read whole as it arrives, while the element's code is still on its way: a body read later
  // waits for the page's main thread, which is busy then (the element's first frame), and the
  // client's `json()` would come after that frame instead of in the task that adopts it.
  const answer = send(url, init).then(async (res): Promise<ReadAnswer> => ({
    status: res.status,
    statusText: res.statusText,
    headers: [...res.headers],
    body: await res.arrayBuffer(),
  }));
  // Settled either way here: a failure is the adopting client's to handle, not unhandled.
  answer.catch(() => {});
  const started: Started = { at: performance.now(), maxAgeMs, answer };
  const list = registry().get(key) ?? [];
  list.push(started);
  registry().set(key, list);
  setTimeout(() => take(key, started), maxAgeMs);
}

/** Takes `started` (else the oldest) out of `key`'s requests; returns it, if it was there. */
function take(key: string, started?: Started): Started | undefined {
  const list = registry().get(key);
  const at = list ? (started ? list.indexOf(started) : 0) : -1;
  if (at < 0 || at >= list!.length) return undefined;
  const [taken] = list!.splice(at, 1);
  if (list!.length === 0) registry().delete(key);
  return taken;
}

/** The bodies of adopted answers, read already (`responseJson` parses them without a read). */
const readBodies = new WeakMap<Response, ArrayBuffer>();

const decoder = new TextDecoder();

/**
 * `res.json()`, but at once for an answer `prefetchedFetch` adopted: its body was read as it
 * arrived, and reading it again through the `Response` would wait for the page's busy main
 * thread (tasks behind the element's first frame) before the client could go on.
 */
export function responseJson(res: Response): Promise<unknown> {
  const body = readBodies.get(res);
  if (body === undefined) return res.json();
  readBodies.delete(res);
  try {
    return Promise.resolve(JSON.parse(decoder.decode(body)));
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * A `fetch` that answers a request matching one started by `prefetch` with that request's answer
 * (once), and sends every other request with `send`.
 */
export function prefetchedFetch(send: typeof fetch = globalThis.fetch.bind(globalThis)) {
  return (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if (registry().size > 0 && typeof input === "string" && !init?.signal?.aborted) {
      // Its timer drops an answer at its age; a busy page may run that timer late.
      const first = take(requestKey(input, init));
      if (first && performance.now() - first.at < first.maxAgeMs) {
        return first.answer.then((a) => {
          const res = new Response(NULL_BODY.has(a.status) ? null : a.body, {
            status: a.status,
            statusText: a.statusText,
            headers: a.headers,
          });
          readBodies.set(res, a.body);
          return res;
        });
      }
    }
    return send(input, init);
  };
}
