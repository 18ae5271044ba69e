import assert from "node:assert/strict";
import { HEADER_MEMO_MAX_VALUE, HEADER_MEMO_SIZE, headerMemo } from "@/lib/http/header_memo.ts";
import { acceptedCodings } from "@/lib/http/content_coding.ts";
import { negotiateRenderForm } from "@/lib/render/render_form.ts";

Deno.test("http - header memo: a value is parsed once, a long value every time", () => {
  const seen: string[] = [];
  const parse = headerMemo((value) => {
    seen.push(value);
    return value.length;
  });
  assert.equal(parse("gzip, br"), 8);
  assert.equal(parse("gzip, br"), 8);
  assert.deepEqual(seen, ["gzip, br"]);
  const long = "x".repeat(HEADER_MEMO_MAX_VALUE + 1);
  parse(long);
  parse(long);
  assert.equal(seen.filter((v) => v === long).length, 2, "a long value is not remembered");
});

Deno.test("http - header memo: it starts over when full, and answers the same after", () => {
  let calls = 0;
  const parse = headerMemo((value) => (calls++, value.toUpperCase()));
  for (let i = 0; i <= HEADER_MEMO_SIZE; i++) assert.equal(parse(`v${i}`), `V${i}`);
  assert.equal(calls, HEADER_MEMO_SIZE + 1);
  assert.equal(parse("v0"), "V0", "forgotten, parsed again");
  assert.equal(calls, HEADER_MEMO_SIZE + 2);
  assert.equal(parse(`v${HEADER_MEMO_SIZE}`), `V${HEADER_MEMO_SIZE}`);
  assert.equal(calls, HEADER_MEMO_SIZE + 2, "the value that started the new map is remembered");
});

Deno.test("http - header memo: remembered negotiations answer as fresh ones and cannot be changed", () => {
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(acceptedCodings("gzip, br;q=0.8"), ["gzip", "br"]);
    assert.deepEqual(acceptedCodings("br, gzip;q=0"), ["br"]);
    assert.equal(
      negotiateRenderForm("application/vnd.cad-render, application/json;q=0.5"),
      "binary",
    );
    assert.equal(negotiateRenderForm("application/json"), "json");
  }
  const codings = acceptedCodings("gzip, br") as string[];
  assert.throws(() => codings.push("zstd"), TypeError);
  assert.deepEqual(acceptedCodings("gzip, br"), ["br", "gzip"]);
});
