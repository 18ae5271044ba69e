import assert from "node:assert/strict";
import { Hono } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { MEMO_MAX_PATH, MemoRouter } from "@/lib/web/memo_router.ts";

Deno.test("memo router - answers as the router it wraps, for each method and path", () => {
  const plain = new TrieRouter<string>();
  const memo = new MemoRouter<string>(512, new TrieRouter<string>());
  const routes: [string, string, string][] = [
    ["ALL", "*", "all"],
    ["POST", "/api/v1/sdk/session-tokens", "mint"],
    ["ALL", "/v1/kernels/:kernel/render", "render"],
    ["GET", "/settings/keys/new", "new"],
    ["ALL", "/settings/keys/:keyId/revoke", "revoke"],
  ];
  for (const [m, p, h] of routes) {
    plain.add(m, p, h);
    memo.add(m, p, h);
  }
  const asks: [string, string][] = [
    ["POST", "/api/v1/sdk/session-tokens"],
    ["GET", "/api/v1/sdk/session-tokens"],
    ["POST", "/v1/kernels/gear/render"],
    ["POST", "/v1/kernels/vase/render"],
    ["GET", "/settings/keys/new"],
    ["POST", "/settings/keys/k1/revoke"],
    ["GET", "/nothing"],
  ];
  for (let round = 0; round < 2; round++) {
    for (const [method, path] of asks) {
      assert.deepEqual(memo.match(method, path), plain.match(method, path), `${method} ${path}`);
    }
  }
  assert.equal(memo.size, asks.length, "each method and path remembered once");
});

Deno.test("memo router - forgets the oldest past its capacity and never keeps long paths", () => {
  const memo = new MemoRouter<string>(2, new TrieRouter<string>());
  memo.add("GET", "/a/:id", "a");
  memo.match("GET", "/a/1");
  memo.match("GET", "/a/2");
  memo.match("GET", "/a/3");
  assert.equal(memo.size, 2);
  const [[[, params]]] = memo.match("GET", "/a/1") as [[string, Record<string, string>][]];
  assert.equal(params.id, "1", "a forgotten path is matched again");
  const long = "/a/" + "x".repeat(MEMO_MAX_PATH);
  const [[[handler]]] = memo.match("GET", long) as [[string, Record<string, string>][]];
  assert.equal(handler, "a");
  assert.equal(memo.size, 2, "the long path was not remembered");
});

Deno.test("memo router - a Hono app on it routes and reads params per request", async () => {
  const app = new Hono({ router: new MemoRouter() });
  app.get("/settings/keys/new", (c) => c.text("new"));
  app.post("/settings/keys/:keyId/revoke", (c) => c.text(`revoke ${c.req.param("keyId")}`));
  for (let i = 0; i < 2; i++) {
    assert.equal(await (await app.request("/settings/keys/new")).text(), "new");
    const a = await app.request("/settings/keys/k%201/revoke", { method: "POST" });
    assert.equal(await a.text(), "revoke k 1");
    const b = await app.request("/settings/keys/k2/revoke", { method: "POST" });
    assert.equal(await b.text(), "revoke k2");
    assert.equal((await app.request("/settings/keys/k2/revoke")).status, 404);
  }
});
