/**
 * Signing up and signing in. The first sign-up without an invitation creates a partner and makes
 * its account the owner; an invitation link (a one-time token) joins an existing partner with the
 * role the inviting owner chose. Sign-in answers the same `sign_in_failed` for an unknown email
 * and a wrong password, and spends the same argon2id work on both.
 */
import { AppError } from "../http/problem.ts";
import {
  type Account,
  type AccountRole,
  getAccountByEmail,
  insertAccount,
} from "../store/accounts.ts";
import { createInvite, getInvite } from "../store/accounts_invites.ts";
import { createPartner } from "../store/partners.ts";
import { randomId } from "../store/ids.ts";
import { DUMMY_PASSWORD_HASH, hashPassword, PASSWORD_LENGTH, verifyPassword } from "./password.ts";
import type { SignInThrottle } from "./sign_in_throttle.ts";

/** What the sign-up form sends. */
export interface SignUpInput {
  email: string;
  password: string;
  /** Required without an invitation: the new partner's name. */
  partnerName?: string;
  /** The token of an invitation link. */
  inviteToken?: string;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/;

/** Normalizes and checks an email address (lowercase, trimmed). */
export function normalizeEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (!EMAIL.test(email)) {
    throw new AppError(
      "validation_failed",
      `"${input.trim().slice(0, 80)}" is not an email address.`,
      { extensions: { errors: [{ pointer: "/email", detail: "not an email address" }] } },
    );
  }
  return email;
}

function checkPassword(password: string): void {
  if (password.length < PASSWORD_LENGTH.min || password.length > PASSWORD_LENGTH.max) {
    throw new AppError(
      "validation_failed",
      `A password must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters.`,
      { extensions: { errors: [{ pointer: "/password", detail: "wrong length" }] } },
    );
  }
}

/**
 * Creates an account (and, without an invitation, its partner).
 *
 * @example
 * ```ts
 * const owner = await signUp(kv, { email: "a@shop.example", password: "…", partnerName: "Shop" });
 * ```
 */
export async function signUp(kv: Deno.Kv, input: SignUpInput, now = Date.now()): Promise<Account> {
  const email = normalizeEmail(input.email);
  checkPassword(input.password);
  const invite = input.inviteToken ? await getInvite(kv, input.inviteToken, now) : null;
  if (input.inviteToken && !invite) {
    throw new AppError("invite_invalid", "This invitation link is unknown, used or expired.");
  }
  if (invite && invite.value.email !== email) {
    throw new AppError(
      "validation_failed",
      `This invitation is for ${invite.value.email}; sign up with that address.`,
      { extensions: { errors: [{ pointer: "/email", detail: "differs from the invitation" }] } },
    );
  }
  if (await getAccountByEmail(kv, email)) {
    throw new AppError("account_exists", "An account with this email exists; sign in instead.");
  }
  const passwordHash = await hashPassword(input.password);
  let partnerId: string;
  let role: AccountRole;
  if (invite) {
    partnerId = invite.value.partnerId;
    role = invite.value.role;
  } else {
    partnerId = (await createPartner(kv, input.partnerName ?? "", now)).id;
    role = "owner";
  }
  const account: Account = {
    id: randomId("acc_"),
    email,
    partnerId,
    role,
    passwordHash,
    createdAt: now,
  };
  const ok = await insertAccount(
    kv,
    account,
    (op) => invite ? op.check(invite).delete(invite.key) : op,
  );
  if (!ok) {
    throw invite && !(await getInvite(kv, input.inviteToken!, now))
      ? new AppError("invite_invalid", "This invitation link was just used.")
      : new AppError("account_exists", "An account with this email exists; sign in instead.");
  }
  return account;
}

/**
 * Checks an email and password under the failed-sign-in throttle; the account on success.
 *
 * @example
 * ```ts
 * const account = await signIn(kv, throttle, { email, password, clientIp: "203.0.113.9" });
 * ```
 */
export async function signIn(
  kv: Deno.Kv,
  throttle: SignInThrottle,
  input: { email: string; password: string; clientIp: string },
): Promise<Account> {
  const email = input.email.trim().toLowerCase().slice(0, 320);
  await throttle.check(email, input.clientIp);
  const account = email ? await getAccountByEmail(kv, email) : null;
  const password = input.password.slice(0, PASSWORD_LENGTH.max);
  // An unknown email costs one argon2id run too, so timing does not tell which emails exist.
  const ok = await verifyPassword(password, account?.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!account || !ok) {
    await throttle.failed(email || "(empty)", input.clientIp);
    throw new AppError("sign_in_failed", "The email or password is not correct.");
  }
  await throttle.succeeded(email);
  return account;
}

/** Invites `email` to the inviter's partner; only owners may. Returns the one-time token. */
export async function inviteMember(
  kv: Deno.Kv,
  inviter: Account,
  input: { email: string; role: string },
  now = Date.now(),
): Promise<string> {
  if (inviter.role !== "owner") {
    throw new AppError("forbidden", "Only owners can invite members.");
  }
  const email = normalizeEmail(input.email);
  if (input.role !== "owner" && input.role !== "developer") {
    throw new AppError("validation_failed", 'The role must be "owner" or "developer".');
  }
  if (await getAccountByEmail(kv, email)) {
    throw new AppError("account_exists", `${email} already has an account.`);
  }
  return await createInvite(kv, {
    partnerId: inviter.partnerId,
    email,
    role: input.role,
    invitedBy: inviter.id,
    createdAt: now,
  });
}
