/**
 * Responses that middleware will still add headers to. Deno prepares a `Response` built with a
 * body and several headers for the wire at construction (a native copy of its headers); the
 * first read of `response.headers` discards that copy, and every response here is read and
 * written by middleware (CORS, compression, security headers, the request id) after its route
 * made it. So the copy is made twice. A 200 built with at most a `Content-Type` is kept in a
 * cheap static state instead, and its other headers are added through `response.headers`; the
 * server then writes the finished headers once: a server answering a mint-sized body with the
 * hub's headers spent 32 µs of CPU per request this way against 37 (docs/performance.md).
 */

/**
 * `new Response(body, init)`, made so that headers added later cost no second preparation (see
 * the module comment); any other status, or a null body, is built as usual.
 *
 * @example
 * ```ts
 * const res = leanResponse(bytes, { headers: { "content-type": "application/json" } });
 * res.headers.set("x-request-id", id); // cheap: nothing was prepared yet
 * ```
 */
export function leanResponse(body: BodyInit | null, init: ResponseInit = {}): Response {
  if ((init.status ?? 200) !== 200 || body === null || init.headers === undefined) {
    return new Response(body, init);
  }
  const res = new Response(body, { statusText: init.statusText });
  const headers = res.headers;
  const add = (name: string, value: string) => {
    // A text body got a default Content-Type; the caller's replaces it.
    if (name.length === 12 && name.toLowerCase() === "content-type") headers.set(name, value);
    else headers.append(name, value);
  };
  const given = init.headers;
  if (given instanceof Headers || Array.isArray(given)) {
    for (const [name, value] of given) add(name, value);
  } else {
    for (const name in given) add(name, given[name]);
  }
  return res;
}
