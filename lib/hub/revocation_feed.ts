/**
 * The hub's feed of the revocation log for kernel nodes (`GET /api/v1/revocations?after=<seq>`,
 * docs/tokens.md, Revocation): the log's head and the entries after a position, a page at a time
 * (lib/render/revocation_log_source.ts reads them). A kernel node holds no Deno KV; its replica
 * polls this feed as a node with KV polls the log, with the same enforced staleness bound.
 *
 * The feed is public, as a certificate revocation list is: it names revoked keyIds (publishable)
 * and the jtis of tokens that no longer work, and grants nothing.
 */
import { AppError } from "../http/problem.ts";
import { REVOCATION_PAGE_MAX } from "../render/revocation_log_source.ts";

/** Parses the feed's query: `after` (a position, default 0), `limit` (1–2000, default 2000). */
export function parseRevocationQuery(
  after: string | undefined,
  limit: string | undefined,
): { after: number; limit: number } {
  return {
    after: integer("after", after, 0, Number.MAX_SAFE_INTEGER, 0),
    limit: integer("limit", limit, 1, REVOCATION_PAGE_MAX, REVOCATION_PAGE_MAX),
  };
}

function integer(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new AppError(
      "validation_failed",
      `\`${name}\` must be an integer from ${min} to ${max}.`,
      {
        extensions: { pointer: `/${name}` },
      },
    );
  }
  return n;
}
