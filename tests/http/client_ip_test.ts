import assert from "node:assert/strict";
import { Hono } from "hono";
import {
  clientNetwork,
  normalizeIp,
  requestClientIp,
  TrustedProxies,
  TrustedProxiesError,
} from "@/lib/http/client_ip.ts";
import { ConfigError, loadConfig } from "@/lib/config.ts";

Deno.test("client ip - without trusted proxies the socket peer is the client, whatever XFF says", () => {
  const none = TrustedProxies.parse(undefined);
  assert.equal(none.clientIp("203.0.113.9", "198.51.100.1"), "203.0.113.9");
  assert.equal(none.clientIp("::ffff:203.0.113.9", null), "203.0.113.9", "IPv4-mapped");
  assert.equal(none.clientIp(undefined, "198.51.100.1"), "unknown", "no peer address");
  assert.equal(TrustedProxies.parse("  "), TrustedProxies.none);
  assert.equal(TrustedProxies.parse("0"), TrustedProxies.none);
});

Deno.test("client ip - trusted ranges: the right-most address that is not a trusted proxy", () => {
  const trust = TrustedProxies.parse("10.0.0.0/8, 2001:db8:ffff::/48 loopback");
  const cases: Array<[string, string, string | null, string]> = [
    ["one proxy", "10.0.0.5", "203.0.113.9", "203.0.113.9"],
    ["a forged entry left of the real one", "10.0.0.5", "1.2.3.4, 203.0.113.9", "203.0.113.9"],
    ["two proxies", "10.0.0.5", "1.2.3.4, 203.0.113.9, 10.9.9.9", "203.0.113.9"],
    ["an untrusted peer's XFF is ignored", "198.51.100.7", "203.0.113.9", "198.51.100.7"],
    ["a trusted peer without XFF", "10.0.0.5", null, "10.0.0.5"],
    ["only proxies: the left-most", "127.0.0.1", "10.1.1.1, 10.2.2.2", "10.1.1.1"],
    ["IPv6 proxy range", "2001:db8:ffff::1", "2001:db8:1::7", "2001:db8:1::7"],
    ["ports and brackets are removed", "10.0.0.5", "[2001:db8:1::7]:443", "2001:db8:1::7"],
    ["an IPv4 with a port", "10.0.0.5", "203.0.113.9:5123", "203.0.113.9"],
    ["garbage from a trusted hop: that hop", "10.0.0.5", "1.2.3.4, not-an-ip", "10.0.0.5"],
    ["several headers joined by commas", "::1", "203.0.113.9,198.51.100.2", "198.51.100.2"],
  ];
  for (const [name, peer, xff, want] of cases) {
    assert.equal(trust.clientIp(peer, xff), want, name);
  }
});

Deno.test("client ip - a hop count trusts that many proxies from the socket peer", () => {
  const one = TrustedProxies.parse("1");
  assert.equal(one.clientIp("192.0.2.1", "1.2.3.4, 203.0.113.9"), "203.0.113.9");
  assert.equal(one.clientIp("192.0.2.1", null), "192.0.2.1", "no XFF: the peer");
  const two = TrustedProxies.parse("2");
  assert.equal(two.clientIp("192.0.2.1", "1.2.3.4, 203.0.113.9, 10.0.0.1"), "203.0.113.9");
  assert.equal(two.clientIp("192.0.2.1", "203.0.113.9"), "203.0.113.9", "shorter chain: left-most");
  assert.equal(two.description, "2 hops");
});

Deno.test("client ip - bad TRUSTED_PROXIES entries are refused with the variable named", () => {
  for (const bad of ["10.0.0.0/33", "example.com", "::1/129", "10.0.0.0/8/1", "17", "*"]) {
    assert.throws(() => TrustedProxies.parse(bad), TrustedProxiesError, bad);
    assert.throws(
      () => loadConfig({ TRUSTED_PROXIES: bad }),
      (e: unknown) => e instanceof ConfigError && /TRUSTED_PROXIES/.test(e.message),
    );
  }
  assert.equal(loadConfig({}).trustedProxies, TrustedProxies.none);
  assert.equal(
    loadConfig({ TRUSTED_PROXIES: "uniquelocal" }).trustedProxies.clientIp("172.16.3.4", "9.9.9.9"),
    "9.9.9.9",
  );
});

Deno.test("client ip - addresses normalize, and IPv6 clients count per /56", () => {
  assert.equal(normalizeIp(" 2001:DB8::1 "), "2001:db8::1");
  assert.equal(normalizeIp("fe80::1%eth0"), "fe80::1");
  assert.equal(normalizeIp("unknown"), null);
  assert.equal(clientNetwork("203.0.113.9"), "203.0.113.9");
  assert.equal(clientNetwork("2001:db8:1:2a07::7"), "2001:db8:1:2a00::/56");
  assert.equal(clientNetwork("2001:db8:1:2aff:1:2:3:4"), "2001:db8:1:2a00::/56");
  assert.equal(clientNetwork("::1"), "0:0:0:0::/56");
  assert.equal(clientNetwork("64:ff9b::192.0.2.33"), "64:ff9b:0:0::/56");
  assert.equal(clientNetwork("unknown"), "unknown");
});

Deno.test("client ip - a route reads the socket peer Deno.serve hands in (app.request's third argument)", async () => {
  const app = new Hono();
  app.get("/", (c) => c.text(requestClientIp(c, TrustedProxies.parse("loopback"))));
  const peer = (hostname: string) => ({ remoteAddr: { hostname } });
  const ip = async (init: RequestInit, env?: unknown) =>
    await (await app.request("/", init, env)).text();
  assert.equal(await ip({}, peer("198.51.100.7")), "198.51.100.7");
  const forwarded = { headers: { "x-forwarded-for": "203.0.113.9" } };
  assert.equal(
    await ip(forwarded, peer("198.51.100.7")),
    "198.51.100.7",
    "an untrusted peer's XFF",
  );
  assert.equal(await ip(forwarded, peer("127.0.0.1")), "203.0.113.9", "a trusted proxy's XFF");
  assert.equal(await ip(forwarded), "unknown", "no socket peer: not the forged header either");
});
