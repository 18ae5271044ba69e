import assert from "node:assert/strict";
import { jsonResponse } from "@/lib/http/json_response.ts";
import { AppError, problemResponse } from "@/lib/http/problem.ts";

Deno.test("http - json response: declares its length in bytes, its type and the given headers", async () => {
  const value = { name: "Zahnrad ⚙ Ø12", n: [1, 2.5, null] };
  const res = jsonResponse(value, { status: 201, headers: { "cache-control": "no-store" } });
  const bytes = await res.bytes();
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("content-length"), String(bytes.byteLength));
  assert.ok(bytes.byteLength > JSON.stringify(value).length, "non-ASCII counts in bytes");
  assert.deepEqual(JSON.parse(new TextDecoder().decode(bytes)), value);
});

Deno.test("http - json response: a problem declares its length and keeps its own type", async () => {
  const res = problemResponse(new AppError("rate_limited", "Zu viele Anfragen — später."), "r-1");
  const bytes = await res.bytes();
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.equal(res.headers.get("content-length"), String(bytes.byteLength));
  assert.equal(JSON.parse(new TextDecoder().decode(bytes)).code, "rate_limited");
});
