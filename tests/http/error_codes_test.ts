import assert from "node:assert/strict";
import { ERROR_CODES } from "@/lib/http/error_codes.ts";
import { AppError, problemResponse } from "@/lib/http/problem.ts";

Deno.test("errors - every code is listed in docs/errors.md with its status", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/errors.md", import.meta.url));
  for (const [code, info] of Object.entries(ERROR_CODES)) {
    const row = doc.split("\n").find((l) => l.startsWith(`| \`${code}\``));
    assert.ok(row, `docs/errors.md lists ${code}`);
    assert.ok(
      row.includes(`| ${info.status} `),
      `docs/errors.md gives ${code} status ${info.status}`,
    );
  }
});

Deno.test("errors - problem responses are RFC 9457 and never leak internal messages", async () => {
  const res = problemResponse(
    new AppError("rate_limited", "slow down", { headers: { "Retry-After": "3" } }),
    "r1",
  );
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.equal(res.headers.get("retry-after"), "3");
  assert.deepEqual(await res.json(), {
    type: "/problems/rate_limited",
    title: ERROR_CODES.rate_limited.title,
    status: 429,
    detail: "slow down",
    code: "rate_limited",
    instance: "urn:request:r1",
  });
  const internal = problemResponse(new Error("connection string redis://user:pw@host"));
  assert.equal(internal.status, 500);
  const body = await internal.json();
  assert.equal(body.code, "internal_error");
  assert.doesNotMatch(JSON.stringify(body), /redis:\/\//);
});
