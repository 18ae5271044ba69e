import assert from "node:assert/strict";
import http from "node:http";
import { leanResponse } from "@/lib/http/lean_response.ts";

/** The header lines exactly as the server wrote them (name lowercased, in order). */
function wireHeaders(url: string): Promise<{ status: number; lines: [string, string][] }> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      res.resume();
      const lines: [string, string][] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        lines.push([res.rawHeaders[i].toLowerCase(), res.rawHeaders[i + 1]]);
      }
      res.on("end", () => resolve({ status: res.statusCode!, lines }));
    }).on("error", reject);
  });
}

Deno.test("http - lean response: headers given in any form are kept; a text body takes the caller's type", async () => {
  const forms: HeadersInit[] = [
    { "content-type": "application/json", "cache-control": "no-store" },
    [["Content-Type", "application/json"], ["Cache-Control", "no-store"]],
    new Headers({ "content-type": "application/json", "cache-control": "no-store" }),
  ];
  for (const headers of forms) {
    for (const body of ['{"a":1}', new TextEncoder().encode('{"a":1}')]) {
      const res = leanResponse(body, { headers });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.deepEqual(await res.json(), { a: 1 });
    }
  }
  const text = leanResponse("hi", { headers: { "x-a": "1" } });
  assert.equal(text.headers.get("content-type"), "text/plain;charset=UTF-8", "default type kept");
  const repeated = leanResponse("hi", { headers: [["vary", "Origin"], ["vary", "Accept"]] });
  assert.equal(repeated.headers.get("vary"), "Origin, Accept", "repeated names are appended");
});

Deno.test("http - lean response: other statuses and empty bodies are built as usual", async () => {
  const created = leanResponse("{}", {
    status: 201,
    headers: { "content-type": "application/json" },
  });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get("content-type"), "application/json");
  await created.body?.cancel();
  const empty = leanResponse(null, { status: 204, headers: { vary: "Origin" } });
  assert.equal(empty.status, 204);
  assert.equal(empty.body, null);
  assert.equal(empty.headers.get("vary"), "Origin");
  const statusText = leanResponse("x", { statusText: "Fine", headers: { "x-a": "1" } });
  assert.equal(statusText.statusText, "Fine");
  await statusText.body?.cancel();
});

Deno.test("http - lean response: headers given and added later reach the wire once each", async () => {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => {
    const bytes = new URL(req.url).pathname === "/bytes";
    const body = bytes ? new TextEncoder().encode('{"ok":true}') : '{"ok":true}';
    const res = leanResponse(body, {
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
    // What middleware does after the route made its response.
    res.headers.set("x-request-id", "req-1");
    res.headers.append("vary", "Origin");
    return res;
  });
  try {
    for (const path of ["/bytes", "/text"]) {
      const { status, lines } = await wireHeaders(`http://127.0.0.1:${server.addr.port}${path}`);
      assert.equal(status, 200);
      const names = lines.map(([name]) => name);
      for (const name of ["content-type", "cache-control", "x-request-id", "vary"]) {
        assert.equal(names.filter((n) => n === name).length, 1, `${path}: one ${name}`);
      }
      const get = (name: string) => lines.find(([n]) => n === name)?.[1];
      assert.equal(get("content-type"), "application/json", path);
      assert.equal(get("x-request-id"), "req-1", path);
      assert.equal(get("vary"), "Origin", path);
      assert.equal(get("content-length"), "11", path);
    }
  } finally {
    await server.shutdown();
  }
});
