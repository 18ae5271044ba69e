import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  cacheKey,
  canonicalDagJson,
  canonicalJson,
  dagHash,
  sha256Hex,
} from "../../lib/dag/canonical_dag.ts";
import type { Dag } from "../../lib/dag/dag_types.ts";
import { validateDag } from "../../lib/kernel/dag_validate.ts";

const jcs = new URL("../fixtures/jcs/", import.meta.url);
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

Deno.test("kernel - canonicalJson reproduces every RFC 8785 vector byte for byte", async () => {
  const names = [...Deno.readDirSync(new URL("input/", jcs))].map((e) => e.name).sort();
  assert.deepEqual(names, [
    "arrays.json",
    "french.json",
    "structures.json",
    "unicode.json",
    "values.json",
    "weird.json",
  ]);
  for (const name of names) {
    const input = JSON.parse(await Deno.readTextFile(new URL(`input/${name}`, jcs)));
    const expected = await Deno.readFile(new URL(`output/${name}`, jcs));
    const actual = new TextEncoder().encode(canonicalJson(input));
    assert.deepEqual(actual, expected, name);
  }
});

Deno.test("kernel - canonicalJson sorts by UTF-16 code units and writes ECMAScript numbers", () => {
  assert.equal(
    canonicalJson({ b: 1, a: [true, null, "x"], "": 0 }),
    '{"":0,"a":[true,null,"x"],"b":1}',
  );
  assert.equal(
    canonicalJson({ "\u20ac": 1, "\ud83d\ude02": 2, "\u00f6": 3 }),
    '{"ö":3,"€":1,"😂":2}',
  );
  assert.equal(
    canonicalJson([1e21, 1e-7, -0, 0.1 + 0.2, 100, 4.5e-324]),
    "[1e+21,1e-7,0,0.30000000000000004,100,5e-324]",
  );
  assert.equal(canonicalJson("\u2028</script>\u001f"), '"\u2028</script>\\u001f"');
  const proto = JSON.parse('{"__proto__":{"x":1},"a":1}');
  assert.equal(canonicalJson(proto), '{"__proto__":{"x":1},"a":1}');
});

Deno.test("kernel - canonicalJson refuses what JSON cannot carry canonically", () => {
  for (const bad of [NaN, Infinity, [1, -Infinity], "\ud800", { "\udc00": 1 }, undefined]) {
    assert.throws(() => canonicalJson(bad), TypeError, String(bad));
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => canonicalJson(cyclic), TypeError);
});

Deno.test("kernel - canonicalDagJson and dagHash ignore member order and spelling", async () => {
  const a = validateDag(JSON.parse(
    '{"dag":1,"output":"out","nodes":{"b":{"op":"box","size":[1.0,2e0,30E-1]},' +
      '"p":{"op":"part","name":"B","color":"#000000","child":{"ref":"b"}},' +
      '"out":{"op":"assembly","parts":[{"ref":"p"}]}}}',
  ));
  const b = validateDag(JSON.parse(
    '{"nodes":{"out":{"parts":[{"ref":"p"}],"op":"assembly"},' +
      '"p":{"child":{"ref":"b"},"color":"#000000","name":"B","op":"part"},' +
      '"b":{"size":[1,2,3],"op":"box"}},"output":"out","dag":1}',
  ));
  const expected = '{"dag":1,"nodes":{"b":{"op":"box","size":[1,2,3]},' +
    '"out":{"op":"assembly","parts":[{"ref":"p"}]},' +
    '"p":{"child":{"ref":"b"},"color":"#000000","name":"B","op":"part"}},"output":"out"}';
  assert.equal(canonicalDagJson(a), expected);
  assert.equal(canonicalDagJson(b), expected);
  const hash = await dagHash(a);
  assert.match(hash, /^[0-9a-f]{64}$/);
  assert.equal(hash, sha256(expected));
  assert.equal(await dagHash(b), hash);
});

Deno.test("kernel - dagHash hashes the UTF-8 bytes of non-ASCII names", async () => {
  const dag = {
    dag: 1,
    nodes: {
      b: { op: "box", size: [1, 1, 1] },
      p: { op: "part", name: "Träger € 😂", color: "#000000", child: { ref: "b" } },
      out: { op: "assembly", parts: [{ ref: "p" }] },
    },
    output: "out",
  } as unknown as Dag;
  assert.equal(await dagHash(dag), sha256(canonicalDagJson(dag)));
  assert.equal(
    await sha256Hex(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    await sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("kernel - cacheKey is sha256 of kernelVersion, a newline and the DAG hash", async () => {
  const hash = "a".repeat(64);
  const key = await cacheKey("manifold-3.2.1+k1", hash);
  assert.equal(key, sha256(`manifold-3.2.1+k1\n${hash}`));
  assert.notEqual(await cacheKey("manifold-3.2.1+k2", hash), key);
  // The separator keeps ("a", "bc…") and ("ab", "c…") apart.
  assert.notEqual(await cacheKey("a", "bc"), await cacheKey("ab", "c"));
});
