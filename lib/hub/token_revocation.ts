/**
 * Revoking one session token by its `jti` (`deno task hub token revoke`): an entry of the
 * revocation log in Deno KV, which every render node reads (docs/tokens.md, Revocation). The
 * other tokens of its key go on rendering; revoke the key to stop them all.
 */
import { recordRevocation, tokenRevocation } from "../store/revocations.ts";

/**
 * Revokes the token `jti` until its `exp` (Unix seconds) plus the clock leeway. Given this
 * process's `replica`, it is brought up to date before returning, so this process refuses the
 * token at once; every other node does within `REVOCATION_MAX_STALENESS_MS`.
 *
 * @example
 * ```ts
 * await revokeToken(kv, claims.jti, claims.exp, { replica: deps.render?.revocations });
 * ```
 */
export async function revokeToken(
  kv: Deno.Kv,
  jti: string,
  exp: number,
  options: { now?: number; replica?: { sync(): Promise<void> } } = {},
): Promise<void> {
  const now = options.now ?? Date.now();
  await recordRevocation(kv, tokenRevocation(jti, exp, now), now);
  // Committed: a failed local read is covered by the replica's polling and fail-closed bound.
  await options.replica?.sync().catch(() => {});
}
