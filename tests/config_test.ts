import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "@/lib/config.ts";

Deno.test("config - defaults are the embedded single-process setup", () => {
  const c = loadConfig({});
  assert.equal(c.port, 8000);
  assert.equal(c.role, "all");
  assert.equal(c.publicUrl, "http://localhost:8000");
  assert.equal(c.hubUrl, c.publicUrl);
  assert.equal(c.kernelUrl, c.publicUrl);
  assert.equal(c.kvPath, "./data/hub.kv");
  assert.equal(c.redisUrl, undefined);
  assert.equal(c.redisTimeoutMs, 500);
});

Deno.test("config - PUBLIC_URL feeds the hub and kernel URLs unless they are set", () => {
  const c = loadConfig({
    PUBLIC_URL: "https://cad.example/",
    KERNEL_URL: "https://render.example",
  });
  assert.equal(c.publicUrl, "https://cad.example");
  assert.equal(c.hubUrl, "https://cad.example");
  assert.equal(c.kernelUrl, "https://render.example");
});

Deno.test("config - bad values name the variable", () => {
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: "http" }, /PORT/],
    [{ PORT: "70000" }, /PORT/],
    [{ ROLE: "worker" }, /ROLE/],
    [{ PUBLIC_URL: "not a url" }, /PUBLIC_URL/],
    [{ PUBLIC_URL: "ftp://x" }, /PUBLIC_URL/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    [{ REDIS_TIMEOUT_MS: "0" }, /REDIS_TIMEOUT_MS/],
    [{ REDIS_TIMEOUT_MS: "1.5" }, /REDIS_TIMEOUT_MS/],
  ];
  for (const [env, message] of bad) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
    );
  }
});
