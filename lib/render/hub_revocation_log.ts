/**
 * The revocation log read from the hub's feed (`GET /api/v1/revocations?after=<seq>`,
 * lib/hub/revocation_feed.ts): the source of a kernel node's replica, which holds no Deno KV.
 * Every answer is checked member by member; one that does not have the feed's shape counts as the
 * hub being unreachable, so the replica keeps its bound and fails closed rather than trusting it.
 */
import type { LoggedRevocation } from "../store/revocations.ts";
import { type HubLink, HubUnreachableError } from "./hub_link.ts";
import type { RevocationLogPage, RevocationLogSource } from "./revocation_log_source.ts";

/** The hub's revocation feed as a `RevocationLogSource`. */
export class HubRevocationLog implements RevocationLogSource {
  readonly #hub: HubLink;

  /** Reads the feed of the hub behind `hub`. */
  constructor(hub: HubLink) {
    this.#hub = hub;
  }

  /** One page of the feed after `after`; rejects with `HubUnreachableError` when unsure. */
  async read(after: number): Promise<RevocationLogPage> {
    const answer = await this.#hub.getJson<unknown>(`/api/v1/revocations?after=${after}`);
    if (answer.status !== 200) {
      throw new HubUnreachableError(`the hub's revocation feed answered ${answer.status}`);
    }
    const page = parsePage(answer.body, after);
    if (!page) throw new HubUnreachableError("the hub's revocation feed sent a malformed page");
    return page;
  }
}

const isPosition = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function parsePage(body: unknown, after: number): RevocationLogPage | null {
  if (typeof body !== "object" || body === null) return null;
  const { head, upTo, entries } = body as Record<string, unknown>;
  if (typeof head !== "object" || head === null) return null;
  const { seq, versionstamp } = head as Record<string, unknown>;
  if (!isPosition(seq) || !(versionstamp === null || typeof versionstamp === "string")) return null;
  if (!isPosition(upTo) || upTo > seq || !Array.isArray(entries)) return null;
  const out: LoggedRevocation[] = [];
  for (const e of entries) {
    if (typeof e !== "object" || e === null) return null;
    const { seq: at, entry } = e as Record<string, unknown>;
    if (!isPosition(at) || at <= after || at > upTo) return null;
    if (typeof entry !== "object" || entry === null) return null;
    const r = entry as Record<string, unknown>;
    if (r.kind !== "key" && r.kind !== "token") return null;
    if (typeof r.id !== "string" || !Number.isFinite(r.at) || !Number.isFinite(r.until)) {
      return null;
    }
    out.push({
      seq: at,
      entry: { kind: r.kind, id: r.id, at: r.at as number, until: r.until as number },
    });
  }
  return { head: { seq, versionstamp }, upTo, entries: out };
}
