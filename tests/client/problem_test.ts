import assert from "node:assert/strict";
import { openApiDocument } from "@/lib/app/openapi.ts";
import {
  type ClientErrorCode,
  MINT_PROBLEM_CODES,
  MintError,
  readProblem,
  RENDER_PROBLEM_CODES,
  RenderError,
  type RenderErrorCode,
  type RenderProblemCode,
} from "@/lib/client/problem.ts";
import type { DagErrorCode } from "@/lib/dag/dag_errors.ts";
import { type ErrorCode, isErrorCode } from "@/lib/http/error_codes.ts";
import {
  backoffDelay,
  DEFAULT_RETRY,
  isRetryableStatus,
  parseRetryAfter,
} from "@/lib/client/retry_policy.ts";
import { refreshDelayMs } from "@/lib/client/session_client.ts";
import { readTokenTimes } from "@/lib/client/token_payload.ts";

Deno.test("client - a problem response becomes a typed error with its code and members", async () => {
  const res = new Response(
    JSON.stringify({
      type: "/problems/invalid_dag",
      title: "The DAG is invalid",
      status: 422,
      detail: "node w is not an instance",
      code: "invalid_dag",
      pointer: "/nodes/w",
      reason: "not_an_instance",
      instance: "urn:request:abc",
    }),
    { status: 422, headers: { "content-type": "application/problem+json" } },
  );
  const err = await readProblem(res, RenderError, Date.now());
  assert.ok(err instanceof RenderError);
  assert.equal(err.name, "RenderError");
  assert.equal(err.code, "invalid_dag");
  assert.equal(err.status, 422);
  assert.equal(err.detail, "node w is not an instance");
  assert.equal(err.pointer, "/nodes/w");
  assert.equal(err.reason, "not_an_instance");
  assert.equal(err.instance, "urn:request:abc");
  assert.equal(err.body.title, "The DAG is invalid");
});

Deno.test("client - a 429 problem carries Retry-After; a non-problem body gives http_error", async () => {
  const limited = await readProblem(
    new Response(JSON.stringify({ code: "rate_limited", status: 429, detail: "slow down" }), {
      status: 429,
      headers: { "retry-after": "7" },
    }),
    MintError,
    0,
  );
  assert.ok(limited instanceof MintError);
  assert.equal(limited.code, "rate_limited");
  assert.equal(limited.retryAfterMs, 7000);

  const proxy = await readProblem(
    new Response("<html>Bad gateway</html>", { status: 502, statusText: "Bad Gateway" }),
    RenderError,
    0,
  );
  assert.equal(proxy.code, "http_error");
  assert.equal(proxy.status, 502);
  assert.match(proxy.detail, /502/);
});

/** The problem codes /openapi.json documents for the operation `operationId`. */
function documentedCodes(doc: Record<string, unknown>, operationId: string): string[] {
  type Operation = { operationId?: string; responses?: Record<string, unknown> };
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const operation = Object.values(paths).flatMap((p) => Object.values(p))
    .find((op) => op?.operationId === operationId);
  assert.ok(operation, `/openapi.json has an operation ${operationId}`);
  const codes: string[] = [];
  for (const response of Object.values(operation.responses ?? {})) {
    const schema = (response as Record<string, Record<string, Record<string, unknown>>>)
      .content?.["application/problem+json"]?.schema as
        | { properties: { code: { enum: string[] } } }
        | undefined;
    codes.push(...(schema?.properties.code.enum ?? []));
  }
  return codes;
}

Deno.test("client - its problem codes are the server's: in the catalogue, and all its endpoints document", async (t) => {
  // Browser code cannot import lib/http/error_codes.ts: the client keeps its own lists, held here
  // to the server's catalogue and to what /openapi.json says each endpoint it calls answers.
  const doc = openApiDocument({ hubUrl: "https://hub.example", kernelUrl: "https://k.example" });
  const lists: Array<[string, readonly string[], string[]]> = [
    ["MINT_PROBLEM_CODES", MINT_PROBLEM_CODES, ["mintSessionToken", "mintConfiguratorToken"]],
    ["RENDER_PROBLEM_CODES", RENDER_PROBLEM_CODES, ["render", "getProject", "signConfiguration"]],
  ];
  for (const [name, codes, operations] of lists) {
    await t.step(name, () => {
      assert.deepEqual(codes.filter((c) => !isErrorCode(c)), [], "not in the server's catalogue");
      assert.equal(new Set(codes).size, codes.length, "each code once");
      for (const operationId of operations) {
        const documented = documentedCodes(doc, operationId);
        assert.ok(documented.length > 0, `${operationId} documents its problem codes`);
        assert.deepEqual(
          documented.filter((c) => !codes.includes(c)),
          [],
          `codes ${operationId} answers that ${name} lacks`,
        );
      }
    });
  }
  await t.step("the codes the client makes itself are never server codes", () => {
    // ClientErrorCode, and the literal codes RenderErrorCode adds to the problem codes. Checked by
    // `deno check`: `noneIsAServerCode` does not compile when one of them is a server code.
    type Literal<T> = T extends unknown ? (string extends T ? never : T) : never;
    type Own = ClientErrorCode | Exclude<Literal<RenderErrorCode>, RenderProblemCode>;
    const noneIsAServerCode: [Extract<Own, ErrorCode>] extends [never] ? true : false = true;
    assert.equal(noneIsAServerCode, true);
    const own: Own[] = [
      "network_error",
      "invalid_response",
      "http_error",
      "aborted",
      "disposed",
      "no_project",
      "unsupported_mode",
    ];
    assert.deepEqual(own.filter(isErrorCode), []);
  });
  await t.step("the DAG checks' codes are server codes", () => {
    // Checked by `deno check`: a DagErrorCode the catalogue lacks does not compile here.
    const asServerCode = (code: DagErrorCode): ErrorCode => code;
    for (const code of ["invalid_dag", "invalid_parameters", "invalid_parameter_schema"] as const) {
      assert.ok(isErrorCode(asServerCode(code)), code);
    }
  });
});

Deno.test("client - retry policy: which statuses, how long, and Retry-After", () => {
  for (const status of [408, 429, 500, 502, 503, 504]) {
    assert.equal(isRetryableStatus(status), true);
  }
  for (const status of [400, 401, 403, 404, 413, 415, 422]) {
    assert.equal(isRetryableStatus(status), false);
  }
  assert.equal(backoffDelay(1, DEFAULT_RETRY, () => 0.999), 499);
  assert.equal(backoffDelay(3, DEFAULT_RETRY, () => 0.5), 1000);
  assert.equal(backoffDelay(30, DEFAULT_RETRY, () => 0.999), 29_970, "capped at maxDelayMs");
  assert.equal(backoffDelay(1, DEFAULT_RETRY, () => 0, 5000), 5000, "never less than Retry-After");
  assert.ok(backoffDelay(1, DEFAULT_RETRY, () => 0.999, 5000) <= 5500);
  assert.equal(parseRetryAfter("3", 0), 3000);
  assert.equal(parseRetryAfter(null, 0), undefined);
  assert.equal(parseRetryAfter("soon", 0), undefined);
  const server = Date.parse("2030-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("Tue, 01 Jan 2030 00:00:10 GMT", 0, server), 10_000);
});

Deno.test("client - refresh timing: 80 % or 60 s before expiry, whichever is earlier, never before half", () => {
  assert.equal(refreshDelayMs(30 * 60_000), 24 * 60_000);
  assert.equal(refreshDelayMs(2 * 60_000), 60_000);
  assert.equal(refreshDelayMs(4 * 60_000), 3 * 60_000);
  assert.equal(refreshDelayMs(60_000), 30_000);
  assert.equal(refreshDelayMs(0), 1000, "an already expired token is not re-minted in a loop");
});

Deno.test("client - token times are read from the payload without verification", () => {
  const payload = btoa(JSON.stringify({ iat: 100, exp: 1900, aud: "kernel-api" }))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  assert.deepEqual(readTokenTimes(`sv1.${payload}.sig`), { iat: 100, exp: 1900 });
  assert.deepEqual(readTokenTimes("sv1.%%%.sig"), {});
  assert.deepEqual(readTokenTimes("not-a-token"), {});
});
