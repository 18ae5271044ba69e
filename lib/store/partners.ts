/** Partner records in Deno KV: `["partners", id]`. */
import { AppError } from "../http/problem.ts";
import { randomId } from "./ids.ts";

/** A partner: the company that embeds the configurator. */
export interface Partner {
  id: string;
  name: string;
  createdAt: number;
}

/** Creates a partner with a fresh id. */
export async function createPartner(kv: Deno.Kv, name: string, now = Date.now()): Promise<Partner> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) {
    throw new AppError("validation_failed", "A partner name must be 1 to 200 characters.");
  }
  const partner: Partner = { id: randomId("prt_"), name: trimmed, createdAt: now };
  const res = await kv.atomic()
    .check({ key: ["partners", partner.id], versionstamp: null })
    .set(["partners", partner.id], partner)
    .commit();
  if (!res.ok) throw new Error("partner id collision");
  return partner;
}

/** The partner with `id`, or null. */
export async function getPartner(kv: Deno.Kv, id: string): Promise<Partner | null> {
  return (await kv.get<Partner>(["partners", id])).value;
}

/** The partner with `id`; throws `unknown_partner` when there is none. */
export async function requirePartner(kv: Deno.Kv, id: string): Promise<Partner> {
  const partner = await getPartner(kv, id);
  if (!partner) throw new AppError("unknown_partner", `No partner has the id "${id}".`);
  return partner;
}

/** Every partner, oldest first by id order. */
export async function listPartners(kv: Deno.Kv): Promise<Partner[]> {
  const out: Partner[] = [];
  for await (const e of kv.list<Partner>({ prefix: ["partners"] })) out.push(e.value);
  return out;
}
