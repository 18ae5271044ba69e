import assert from "node:assert/strict";
import { authChallenge } from "@/lib/http/auth_challenge.ts";
import { ERROR_CODES, type ErrorCode } from "@/lib/http/error_codes.ts";
import { AppError, problemHeaders, problemResponse } from "@/lib/http/problem.ts";

// RFC 9110 §11.2: challenge = auth-scheme [ 1*SP #auth-param ]; auth-param = token BWS "=" BWS
// ( token / quoted-string ). (token68 is not used here.)
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
const PARAM = `${TOKEN}=(?:${TOKEN}|${QUOTED})`;
const CHALLENGE = new RegExp(`^${TOKEN}(?: ${PARAM}(?:, ${PARAM})*)?$`);

const codes = Object.keys(ERROR_CODES) as ErrorCode[];

Deno.test("auth challenge - every 401 code has a well-formed challenge and no other code has one", () => {
  for (const code of codes) {
    const challenge = authChallenge(code);
    if (ERROR_CODES[code].status === 401) {
      assert.ok(challenge, `${code} has a challenge`);
      assert.match(challenge, CHALLENGE, code);
    } else {
      assert.equal(challenge, null, code);
    }
  }
});

Deno.test("auth challenge - the scheme and error follow the credential and RFC 6750", () => {
  const cases: Array<[ErrorCode, string | undefined, RegExp]> = [
    ["invalid_token", "bad_signature", /^Bearer realm="session-token", error="invalid_token", /],
    ["token_expired", "expired", /^Bearer realm="session-token", error="invalid_token", /],
    ["token_revoked", undefined, /^Bearer realm="session-token", error="invalid_token", /],
    // No credential sent: no error code (RFC 6750 §3.1).
    ["invalid_token", "missing", /^Bearer realm="session-token"$/],
    ["unauthenticated", undefined, /^Bearer realm="partner-key"$/],
    ["invalid_key_format", "wrong_shape", /^Bearer realm="partner-key", error="invalid_token", /],
    ["unknown_key", undefined, /^Bearer realm="partner-key", error="invalid_token", /],
    ["session_required", undefined, /^Cookie realm="settings", form-action="\/auth\/signin"$/],
    ["sign_in_failed", undefined, /^Cookie realm="settings", form-action="\/auth\/signin"$/],
  ];
  for (const [code, reason, expected] of cases) {
    assert.match(authChallenge(code, reason)!, expected, `${code} ${reason ?? ""}`);
  }
});

Deno.test("auth challenge - problem responses carry it, and an error's own challenge wins", () => {
  const res = problemResponse(
    new AppError("invalid_token", "no token", { extensions: { reason: "missing" } }),
  );
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="session-token"');
  const own = problemHeaders(
    new AppError("unknown_key", "x", { headers: { "WWW-Authenticate": 'Bearer realm="other"' } }),
  );
  assert.equal(own.get("www-authenticate"), 'Bearer realm="other"');
  assert.equal(problemHeaders(new AppError("not_found", "x")).has("www-authenticate"), false);
});
