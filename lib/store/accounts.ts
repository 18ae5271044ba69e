/**
 * Account records in Deno KV: `["accounts", id]`, a unique index `["accounts_by_email", email]`
 * and a per-partner index `["accounts_by_partner", partnerId, id]`. Emails are stored lowercased.
 */

/** What an account may do: owners also manage members; developers manage keys and projects. */
export type AccountRole = "owner" | "developer";

/** A person who signs in to the settings of one partner. */
export interface Account {
  id: string;
  email: string;
  partnerId: string;
  role: AccountRole;
  /** argon2id PHC string. */
  passwordHash: string;
  createdAt: number;
}

/**
 * Stores a new account; false when the email is taken or a check added by `extend` fails
 * (nothing is written then).
 */
export async function insertAccount(
  kv: Deno.Kv,
  account: Account,
  extend: (op: Deno.AtomicOperation) => Deno.AtomicOperation = (op) => op,
): Promise<boolean> {
  const res = await extend(kv.atomic())
    .check({ key: ["accounts_by_email", account.email], versionstamp: null })
    .check({ key: ["accounts", account.id], versionstamp: null })
    .set(["accounts", account.id], account)
    .set(["accounts_by_email", account.email], account.id)
    .set(["accounts_by_partner", account.partnerId, account.id], account.id)
    .commit();
  return res.ok;
}

/** The account with `id`, or null. */
export async function getAccount(kv: Deno.Kv, id: string): Promise<Account | null> {
  return (await kv.get<Account>(["accounts", id])).value;
}

/** The account with `email` (any case), or null. */
export async function getAccountByEmail(kv: Deno.Kv, email: string): Promise<Account | null> {
  const id = (await kv.get<string>(["accounts_by_email", email.toLowerCase()])).value;
  return id ? await getAccount(kv, id) : null;
}

/** Every account of a partner. */
export async function listPartnerAccounts(kv: Deno.Kv, partnerId: string): Promise<Account[]> {
  const out: Account[] = [];
  for await (const e of kv.list<string>({ prefix: ["accounts_by_partner", partnerId] })) {
    const a = await getAccount(kv, e.value);
    if (a) out.push(a);
  }
  return out;
}
