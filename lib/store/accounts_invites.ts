/**
 * Invitations in Deno KV: `["invites", sha256(token)]` expiring after `INVITE_TTL_MS`. The link
 * carries the token; the store only its hash. Redeeming deletes the record in the same atomic
 * operation that creates the account, so a link works once.
 */
import type { AccountRole } from "./accounts.ts";

/** How long an invitation link stays valid (7 days). */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A pending invitation. */
export interface Invite {
  partnerId: string;
  email: string;
  role: AccountRole;
  invitedBy: string;
  createdAt: number;
}

/** Creates an invitation; returns the one-time token for the link. */
export async function createInvite(kv: Deno.Kv, invite: Invite): Promise<string> {
  const token = base64url(crypto.getRandomValues(new Uint8Array(24)));
  await kv.set(["invites", await hashInviteToken(token)], invite, { expireIn: INVITE_TTL_MS });
  return token;
}

/** The invitation for `token` with its KV entry (for an atomic redeem), or null. */
export async function getInvite(
  kv: Deno.Kv,
  token: string,
  now = Date.now(),
): Promise<Deno.KvEntry<Invite> | null> {
  if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return null;
  const entry = await kv.get<Invite>(["invites", await hashInviteToken(token)]);
  if (!entry.value || now - entry.value.createdAt > INVITE_TTL_MS) return null;
  return entry as Deno.KvEntry<Invite>;
}

/** The KV key hash of an invitation token. */
export async function hashInviteToken(token: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`invite\0${token}`));
  return base64url(new Uint8Array(d));
}

function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
