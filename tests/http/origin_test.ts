import assert from "node:assert/strict";
import { explainOriginMatch } from "../../lib/http/origin_match.ts";
import {
  MAX_ALLOWED_ORIGINS,
  MAX_ORIGIN_LENGTH,
  normalizeAllowedOrigin,
  normalizeAllowedOrigins,
  originAllowed,
  OriginError,
  type OriginErrorReason,
  readRequestOrigin,
} from "../../lib/http/origin.ts";

function assertOriginError(
  fn: () => unknown,
  expected: { reason: OriginErrorReason; fragment: string; suggestion?: string; index?: number },
  label: string,
): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof OriginError, `${label}: not an OriginError`);
    assert.equal(err.code, "invalid_origin", label);
    assert.equal(err.reason, expected.reason, `${label}: ${err.message}`);
    assert.ok(err.message.includes(expected.fragment), `${label}: ${JSON.stringify(err.message)}`);
    assert.equal(err.suggestion, expected.suggestion, `${label}: suggestion`);
    if (expected.index !== undefined) assert.equal(err.index, expected.index, `${label}: index`);
    return true;
  });
}

Deno.test("origin - accepted origins normalize to the browser's serialization", () => {
  const rows: [string, string][] = [
    ["https://shop.example.com", "https://shop.example.com"],
    ["http://localhost:5173", "http://localhost:5173"],
    ["http://127.0.0.1:8000", "http://127.0.0.1:8000"],
    ["http://[::1]:3000", "http://[::1]:3000"],
    ["https://EXAMPLE.com:443", "https://example.com"],
    ["http://example.com:80", "http://example.com"],
    ["https://example.com:80", "https://example.com:80"],
    ["http://example.com:443", "http://example.com:443"],
    ["HTTPS://Shop.Example.COM", "https://shop.example.com"],
    ["https://bücher.de", "https://xn--bcher-kva.de"],
    ["https://xn--bcher-kva.de", "https://xn--bcher-kva.de"],
    ["http://[0:0:0:0:0:0:0:1]:3000", "http://[::1]:3000"],
    ["https://shop.example.com:8443", "https://shop.example.com:8443"],
    ["https://example.com:", "https://example.com"],
  ];
  for (const [input, expected] of rows) {
    assert.equal(normalizeAllowedOrigin(input), expected, input);
    // Idempotent: a stored origin normalizes to itself.
    assert.equal(normalizeAllowedOrigin(expected), expected, `${expected} again`);
    // And it is what the platform's own origin serialization produces.
    assert.equal(new URL(expected).origin, expected);
  }
});

Deno.test("origin - refused origins say what is wrong and what to use", () => {
  const long = `https://${"a".repeat(MAX_ORIGIN_LENGTH)}.com`;
  const rows: [string, string, OriginErrorReason, string, string?][] = [
    ["empty", "", "empty", "is required"],
    ["only whitespace", "   ", "whitespace", "whitespace"],
    [
      "leading space",
      " https://shop.example.com",
      "whitespace",
      "leading or trailing whitespace",
      "https://shop.example.com",
    ],
    [
      "trailing newline",
      "https://shop.example.com\n",
      "whitespace",
      `use "https://shop.example.com"`,
      "https://shop.example.com",
    ],
    ["inner space", "https://shop example.com", "whitespace", "contains whitespace"],
    ["tab inside", "https://shop.exa\tmple.com", "whitespace", "whitespace"],
    [
      "control character",
      "https://shop.exa\u0000mple.com",
      "control_character",
      "control character",
    ],
    ["the opaque origin", "null", "opaque", "opaque origin"],
    ["the opaque origin in capitals", "NULL", "opaque", "sandboxed iframes"],
    ["a lone wildcard", "*", "wildcard", "wildcard"],
    ["a subdomain wildcard", "https://*.example.com", "wildcard", "list every origin in full"],
    ["a port wildcard", "http://localhost:*", "wildcard", "wildcard"],
    ["a scheme wildcard", "*://example.com", "wildcard", "wildcard"],
    [
      "a trailing slash",
      "https://shop.example.com/",
      "trailing_slash",
      `"https://shop.example.com/" has a trailing slash; origins have no path — use "https://shop.example.com"`,
      "https://shop.example.com",
    ],
    [
      "a path",
      "https://shop.example.com/configurator",
      "path",
      `a path ("/configurator")`,
      "https://shop.example.com",
    ],
    [
      "a query",
      "https://shop.example.com?ref=1",
      "query",
      `a query ("?ref=1")`,
      "https://shop.example.com",
    ],
    [
      "a fragment",
      "https://shop.example.com#top",
      "fragment",
      `a fragment ("#top")`,
      "https://shop.example.com",
    ],
    [
      "path, query and fragment",
      "https://shop.example.com/a?b#c",
      "path",
      "and a fragment",
      "https://shop.example.com",
    ],
    [
      "user info",
      "https://user@shop.example.com",
      "userinfo",
      "user info",
      "https://shop.example.com",
    ],
    [
      "user and password",
      "https://user:hunter2@shop.example.com",
      "userinfo",
      `use "https://shop.example.com"`,
      "https://shop.example.com",
    ],
    ["ftp", "ftp://files.example.com", "unsupported_scheme", `the scheme "ftp"`],
    ["file", "file:///home/me/index.html", "unsupported_scheme", `send the origin "null"`],
    ["websocket", "wss://example.com", "unsupported_scheme", "http or https"],
    ["extension", "chrome-extension://abcdef", "unsupported_scheme", "http or https"],
    ["mailto", "mailto:shop@example.com", "unsupported_scheme", `the scheme "mailto"`],
    ["about:blank", "about:blank", "unsupported_scheme", "http or https"],
    [
      "no scheme",
      "shop.example.com",
      "missing_scheme",
      `add the scheme, e.g. "https://shop.example.com"`,
      "https://shop.example.com",
    ],
    [
      "no scheme, with port",
      "shop.example.com:8080",
      "missing_scheme",
      "add the scheme",
      "https://shop.example.com:8080",
    ],
    [
      "no scheme, localhost",
      "localhost:5173",
      "missing_scheme",
      `e.g. "http://localhost:5173"`,
      "http://localhost:5173",
    ],
    [
      "no scheme, loopback IP",
      "127.0.0.1:8000",
      "missing_scheme",
      "add the scheme",
      "http://127.0.0.1:8000",
    ],
    [
      "no scheme, IPv6 loopback",
      "[::1]:3000",
      "missing_scheme",
      "add the scheme",
      "http://[::1]:3000",
    ],
    [
      "scheme-relative",
      "//shop.example.com",
      "missing_scheme",
      "no scheme",
      "https://shop.example.com",
    ],
    [
      "empty scheme",
      "://shop.example.com",
      "missing_scheme",
      "no scheme",
      "https://shop.example.com",
    ],
    [
      "no scheme, with a path",
      "shop.example.com/cart",
      "missing_scheme",
      `e.g. "https://shop.example.com"`,
      "https://shop.example.com",
    ],
    [
      "missing slashes",
      "https:shop.example.com",
      "missing_slashes",
      `missing "//"`,
      "https://shop.example.com",
    ],
    [
      "backslashes",
      "https:\\\\shop.example.com",
      "backslash",
      "backslash",
      "https://shop.example.com",
    ],
    ["hostless", "https://", "no_host", "has no host"],
    ["hostless with port", "https://:443", "no_host", "has no host"],
    ["port out of range", "https://example.com:65536", "invalid_port", "1 to 65535"],
    ["port zero", "https://example.com:0", "invalid_port", "1 to 65535"],
    ["port not a number", "https://example.com:https", "invalid_port", `the port "https"`],
    ["unclosed IPv6", "http://[::1:3000", "invalid_host", "unclosed"],
    ["bad percent-escape", "https://%zz.example.com", "invalid_host", "valid host"],
    ["over 2048 characters", long, "too_long", "at most 2048 characters"],
  ];
  for (const [label, input, reason, fragment, suggestion] of rows) {
    assertOriginError(() => normalizeAllowedOrigin(input), { reason, fragment, suggestion }, label);
    assert.throws(() => normalizeAllowedOrigin(input), (err: unknown) => {
      assert.ok(err instanceof OriginError);
      assert.equal(err.input, input, `${label}: input`);
      return true;
    });
  }
});

Deno.test("origin - a refused origin's message does not echo its password", () => {
  assert.throws(
    () => normalizeAllowedOrigin("https://me:hunter2@shop.example.com"),
    (err: unknown) => {
      assert.ok(err instanceof OriginError);
      assert.ok(!err.message.includes("hunter2"), err.message);
      return true;
    },
  );
});

Deno.test("origin - a non-string is refused with invalid_origin", () => {
  assertOriginError(
    () => normalizeAllowedOrigin(42 as unknown as string),
    { reason: "not_a_string", fragment: "must be a string" },
    "number",
  );
});

Deno.test("origin - a list is normalized, de-duplicated after normalization, order kept", () => {
  assert.deepEqual(
    normalizeAllowedOrigins([
      "https://Shop.example.com",
      "http://localhost:5173",
      "https://shop.example.com:443",
      "https://shop.example.com",
      "http://[::1]:3000",
      "http://LOCALHOST:5173",
    ]),
    ["https://shop.example.com", "http://localhost:5173", "http://[::1]:3000"],
  );
  const hundred = Array.from(
    { length: MAX_ALLOWED_ORIGINS },
    (_, i) => `https://s${i}.example.com`,
  );
  assert.equal(normalizeAllowedOrigins(hundred).length, MAX_ALLOWED_ORIGINS);
});

Deno.test("origin - a bad list is refused naming the first bad entry and its index", () => {
  const tooMany = Array.from(
    { length: MAX_ALLOWED_ORIGINS + 1 },
    (_, i) => `https://s${i}.example.com`,
  );
  const rows: [string, string[], OriginErrorReason, string, number?, string?][] = [
    ["empty list", [], "empty_list", "At least one origin is required"],
    ["too many", tooMany, "too_many", "at most 100"],
    [
      "second entry has a trailing slash",
      ["https://a.example.com", "https://b.example.com/", "*"],
      "trailing_slash",
      `Allowed origin 2 of 3 (index 1): "https://b.example.com/" has a trailing slash`,
      1,
      "https://b.example.com",
    ],
    ["first entry is null", ["null", "https://a.example.com"], "opaque", "(index 0)", 0],
    [
      "a non-string entry",
      ["https://a.example.com", 7 as unknown as string],
      "not_a_string",
      "index 1",
      1,
    ],
  ];
  for (const [label, inputs, reason, fragment, index, suggestion] of rows) {
    assertOriginError(
      () => normalizeAllowedOrigins(inputs),
      { reason, fragment, index, suggestion },
      label,
    );
  }
  assertOriginError(
    () => normalizeAllowedOrigins("https://a.example.com" as unknown as string[]),
    { reason: "not_a_list", fragment: "list" },
    "a bare string",
  );
});

Deno.test("origin - readRequestOrigin returns the header as sent, null when absent", () => {
  assert.equal(readRequestOrigin(new Headers()), null);
  assert.equal(
    readRequestOrigin(new Headers({ Origin: "https://shop.example.com" })),
    "https://shop.example.com",
  );
  // Opaque origins come back as the string "null" so the caller can refuse them explicitly.
  assert.equal(readRequestOrigin(new Headers({ origin: "null" })), "null");
  // No normalization at request time: a non-canonical value is returned untouched.
  assert.equal(
    readRequestOrigin(new Headers({ origin: "https://Shop.example.com/" })),
    "https://Shop.example.com/",
  );
  const req = new Request("https://hub.example/api/v1/sdk/session-tokens", {
    method: "POST",
    headers: { origin: "http://localhost:5173" },
  });
  assert.equal(readRequestOrigin(req.headers), "http://localhost:5173");
});

Deno.test("origin - originAllowed is exact string equality", () => {
  const allowed = ["https://shop.example.com", "http://localhost:5173", "http://[::1]:3000"];
  assert.equal(originAllowed("https://shop.example.com", allowed), true);
  assert.equal(originAllowed("http://localhost:5173", allowed), true);
  assert.equal(originAllowed("http://[::1]:3000", allowed), true);
  const refused = [
    "https://shop.example.com/", // trailing slash
    "https://Shop.example.com", // case
    "HTTPS://shop.example.com",
    "https://shop.example.com:443", // explicit default port: browsers never send it
    "https://shop.example.com:8443", // other port
    "http://shop.example.com", // other scheme
    "http://localhost:5174",
    "http://localhost",
    "http://127.0.0.1:5173", // loopback alias
    "https://evil.shop.example.com",
    "https://shop.example.com.evil.com",
    " https://shop.example.com",
    "",
    "null",
  ];
  for (const origin of refused) assert.equal(originAllowed(origin, allowed), false, origin);
  assert.equal(originAllowed(null, allowed), false);
  // Even an allowlist that somehow holds "null" never admits the opaque origin.
  assert.equal(originAllowed("null", ["null"]), false);
  assert.equal(originAllowed("https://shop.example.com", []), false);
});

Deno.test("origin - explainOriginMatch tells a settings page what a browser there would get", async (t) => {
  const allowed = ["https://shop.example.com", "http://localhost:5173", "https://www.acme.io"];

  await t.step("an exact entry matches", () => {
    assert.deepEqual(explainOriginMatch("https://shop.example.com", allowed), {
      matches: true,
      normalized: "https://shop.example.com",
    });
  });

  await t.step("a page URL or non-canonical spelling matches through its origin", () => {
    for (
      const candidate of [
        "https://shop.example.com/products/vase?color=red#top",
        "https://Shop.Example.com",
        "https://shop.example.com:443/",
      ]
    ) {
      const r = explainOriginMatch(candidate, allowed);
      assert.equal(r.matches, true, candidate);
      assert.equal(r.normalized, "https://shop.example.com");
      assert.equal(r.closest, "https://shop.example.com");
      assert.equal(r.error, undefined);
    }
  });

  await t.step("a near miss names the nearest entry and how it differs", () => {
    const rows: [string, string, string][] = [
      ["http://shop.example.com", "https://shop.example.com", "scheme differs"],
      [
        "https://shop.example.com:8443",
        "https://shop.example.com",
        "port differs (8443 vs default)",
      ],
      ["http://localhost:3000", "http://localhost:5173", "port differs (3000 vs 5173)"],
      ["http://127.0.0.1:5173", "http://localhost:5173", "different origins"],
      ["https://acme.io", "https://www.acme.io", `"www."`],
      ["https://shpo.example.com", "https://shop.example.com", "spelled differently"],
      ["https://blog.example.com", "https://shop.example.com", "different subdomain"],
    ];
    for (const [candidate, closest, hint] of rows) {
      const r = explainOriginMatch(candidate, allowed);
      assert.equal(r.matches, false, candidate);
      assert.equal(r.normalized, candidate);
      assert.equal(r.closest, closest, candidate);
      assert.ok(r.hint?.includes(hint), `${candidate}: ${r.hint}`);
    }
  });

  await t.step("same host beats a sibling; on a tie the earlier entry wins", () => {
    const r = explainOriginMatch("http://shop.example.com", [
      "https://blog.example.com",
      "https://shop.example.com:8443",
      "https://shop.example.com",
    ]);
    assert.equal(r.closest, "https://shop.example.com");
    assert.equal(
      explainOriginMatch("https://x.example.com", [
        "https://a.example.com",
        "https://b.example.com",
      ])
        .closest,
      "https://a.example.com",
    );
  });

  await t.step("an unrelated origin has no closest entry", () => {
    assert.deepEqual(explainOriginMatch("https://unrelated.org", allowed), {
      matches: false,
      normalized: "https://unrelated.org",
    });
  });

  await t.step("an unusable candidate reports the error and still points somewhere useful", () => {
    const noScheme = explainOriginMatch("shop.example.com", allowed);
    assert.equal(noScheme.matches, false);
    assert.equal(noScheme.normalized, undefined);
    assert.ok(noScheme.error?.includes("add the scheme"));
    assert.equal(noScheme.closest, "https://shop.example.com");

    const wildcard = explainOriginMatch("https://*.example.com", allowed);
    assert.equal(wildcard.matches, false);
    assert.ok(wildcard.error?.includes("wildcard"));
    assert.equal(wildcard.closest, "https://shop.example.com");

    const opaque = explainOriginMatch("null", allowed);
    assert.equal(opaque.matches, false);
    assert.ok(opaque.error?.includes("opaque origin"));
    assert.equal(opaque.closest, undefined);
  });

  await t.step("never throws, whatever it is given", () => {
    for (
      const candidate of [
        "",
        " ",
        "x".repeat(10_000),
        "ftp://shop.example.com",
        "https://:443",
        "http://[::1",
        7 as unknown as string,
        null as unknown as string,
      ]
    ) {
      const r = explainOriginMatch(candidate, [...allowed, "not an origin"]);
      assert.equal(r.matches, false);
      assert.equal(typeof r.error, "string");
    }
  });
});
