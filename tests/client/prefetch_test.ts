/**
 * Requests started early and adopted (lib/client/prefetch.ts): a request with the same method,
 * URL and body takes the early answer once — status, headers and body as sent, the body readable
 * at once with `responseJson` — and every other request, a second identical one, one past the
 * early answer's age and an aborted one, goes to the network. A failed early request fails its
 * adopter, as its own request would have.
 */
import assert from "node:assert/strict";
import { prefetch, prefetchedFetch, responseJson } from "@/lib/client/prefetch.ts";

const MAX_AGE_MS = 40;
const settle = () => new Promise((resolve) => setTimeout(resolve, MAX_AGE_MS + 10));

/** A `fetch` that answers from `answer` and records what it was asked. */
function fakeNetwork(answer: (url: string, init?: RequestInit) => Response | Promise<Response>) {
  const asked: { url: string; body?: string }[] = [];
  const send = (input: RequestInfo | URL, init?: RequestInit) => {
    asked.push({
      url: String(input),
      body: typeof init?.body === "string" ? init.body : undefined,
    });
    return Promise.resolve(answer(String(input), init));
  };
  return { send: send as typeof fetch, asked };
}

const URL_A = "https://hub.test/api/v1/sdk/session-tokens";
const INIT_A: RequestInit = { method: "POST", body: '{"keyId":"k","projectId":"p"}' };

Deno.test("prefetch - the same request adopts the early answer once; the next goes out", async () => {
  const early = fakeNetwork(() =>
    new Response('{"token":"sv1.x","expiresAt":1}', {
      status: 201,
      headers: { "content-type": "application/json", date: "Mon, 30 Nov 2026 08:00:00 GMT" },
    })
  );
  prefetch(URL_A, INIT_A, early.send, MAX_AGE_MS);
  const later = fakeNetwork(() => new Response('{"token":"sv1.y","expiresAt":2}'));
  const fetchLike = prefetchedFetch(later.send);
  const res = await fetchLike(URL_A, {
    ...INIT_A,
    headers: { "content-type": "application/json" },
  });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("date"), "Mon, 30 Nov 2026 08:00:00 GMT");
  assert.deepEqual(await responseJson(res), { token: "sv1.x", expiresAt: 1 });
  assert.equal(later.asked.length, 0, "the adopter sent nothing");
  const again = await fetchLike(URL_A, INIT_A);
  assert.deepEqual(await responseJson(again), { token: "sv1.y", expiresAt: 2 });
  assert.equal(later.asked.length, 1, "taken once: the second identical request went out");
  assert.equal(early.asked.length, 1);
  await settle();
});

Deno.test("prefetch - another body, method or URL, an aborted request and a stale answer go out", async () => {
  const early = fakeNetwork(() => new Response("{}"));
  prefetch(URL_A, INIT_A, early.send, MAX_AGE_MS);
  const later = fakeNetwork(() => new Response('{"from":"network"}'));
  const fetchLike = prefetchedFetch(later.send);
  await fetchLike(URL_A, { method: "POST", body: '{"keyId":"k","projectId":"other"}' });
  await fetchLike(URL_A, { method: "PUT", body: INIT_A.body });
  await fetchLike(`${URL_A}?x`, INIT_A);
  const aborted = new AbortController();
  aborted.abort();
  await fetchLike(URL_A, { ...INIT_A, signal: aborted.signal });
  assert.equal(later.asked.length, 4);
  // Past its age the early answer is no one's: the request goes out.
  await settle();
  const res = await fetchLike(URL_A, INIT_A);
  assert.deepEqual(await responseJson(res), { from: "network" });
  assert.equal(later.asked.length, 5);
});

Deno.test("prefetch - a failed early request fails its adopter; a body-less status adopts", async () => {
  const down = fakeNetwork(() => Promise.reject(new TypeError("Failed to fetch")));
  prefetch(URL_A, INIT_A, down.send, MAX_AGE_MS);
  const projectUrl = "https://kernel.test/api/v1/projects/p?key=k";
  const notModified = fakeNetwork(() => new Response(null, { status: 304 }));
  prefetch(projectUrl, {}, notModified.send, MAX_AGE_MS);
  const later = fakeNetwork(() => new Response("{}"));
  const fetchLike = prefetchedFetch(later.send);
  await assert.rejects(fetchLike(URL_A, INIT_A), TypeError);
  const res = await fetchLike(projectUrl, { headers: { accept: "application/json" } });
  assert.equal(res.status, 304);
  assert.equal(res.body, null);
  assert.equal(later.asked.length, 0);
  // A response not adopted is read as any other.
  assert.deepEqual(await responseJson(new Response('{"a":1}')), { a: 1 });
  await settle();
});
