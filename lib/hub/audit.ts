/**
 * The audit log of key, project and member changes: who (account id and email), when, what
 * (action and target) and a small detail object. Stored per partner under
 * `["audit", partnerId, at, id]` so a partner's log lists in time order and another partner's
 * entries are never in range. Entries never contain a secret.
 */
import { randomId } from "../store/ids.ts";
import { csvCell } from "./usage.ts";

/** One audit entry. */
export interface AuditEntry {
  id: string;
  partnerId: string;
  at: number;
  actor: { accountId: string; email: string };
  /** e.g. `key.create`, `key.roll`, `key.revoke`, `project.publish`. */
  action: string;
  /** The keyId, project slug or email the action concerns. */
  target: string;
  details: Record<string, unknown>;
}

/**
 * Appends an entry.
 *
 * @example
 * ```ts
 * await appendAudit(kv, { partnerId, actor, action: "key.revoke", target: keyId, details: {} });
 * ```
 */
export async function appendAudit(
  kv: Deno.Kv,
  input: Omit<AuditEntry, "id" | "at">,
  now = Date.now(),
): Promise<AuditEntry> {
  const entry: AuditEntry = { ...input, id: randomId("aud_", 8), at: now };
  await kv.set(["audit", input.partnerId, now, entry.id], entry);
  return entry;
}

/** A partner's audit entries, newest first (at most `limit`). */
export async function listAudit(
  kv: Deno.Kv,
  partnerId: string,
  limit = 500,
): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  for await (
    const e of kv.list<AuditEntry>({ prefix: ["audit", partnerId] }, { reverse: true, limit })
  ) out.push(e.value);
  return out;
}

/** Audit entries as CSV (RFC 4180) with a header; details as JSON in one cell. */
export function auditCsv(entries: AuditEntry[]): string {
  const lines = ["at,actor_email,actor_id,action,target,details"];
  for (const e of entries) {
    lines.push(
      [
        new Date(e.at).toISOString(),
        e.actor.email,
        e.actor.accountId,
        e.action,
        e.target,
        JSON.stringify(e.details),
      ].map(csvCell).join(","),
    );
  }
  return lines.join("\r\n") + "\r\n";
}
