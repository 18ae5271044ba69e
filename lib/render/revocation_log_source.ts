/**
 * Where a revocation replica reads the log (docs/tokens.md, Revocation): pages of the log after a
 * position, each with the head seen when it was read. Deno KV directly where the process holds the
 * store (`KvRevocationLog`); the hub's feed over HTTP on a kernel node
 * (lib/render/hub_revocation_log.ts), which serves what `KvRevocationLog` reads on the hub.
 */
import {
  listRevocations,
  type LoggedRevocation,
  type RevocationHead,
  revocationHead,
} from "../store/revocations.ts";

/** Most entries in one page (the hub's feed serves at most this many per request). */
export const REVOCATION_PAGE_MAX = 2000;

/** One read of the log: its head, and the live entries at positions `after < seq ≤ upTo`. */
export interface RevocationLogPage {
  head: RevocationHead;
  /** The last position this page covers: the head's, unless the page is full. */
  upTo: number;
  entries: LoggedRevocation[];
}

/** Reads the revocation log a page at a time. */
export interface RevocationLogSource {
  /** The head and a page of the entries after `after`; rejects when the log cannot be read. */
  read(after: number): Promise<RevocationLogPage>;
}

/** The revocation log of a Deno KV store. */
export class KvRevocationLog implements RevocationLogSource {
  readonly #kv: Deno.Kv;
  readonly #limit: number;

  /** Reads `kv`'s log, at most `limit` positions per page (default: the whole rest). */
  constructor(kv: Deno.Kv, options: { limit?: number } = {}) {
    this.#kv = kv;
    this.#limit = options.limit ?? Infinity;
  }

  /**
   * The head, and the entries after `after` up to the head or `after + limit`, whichever is
   * lower (positions have no gaps, so a page holds at most `limit` entries). When the head did not
   * move past `after`, one KV read.
   */
  async read(after: number, limit = this.#limit): Promise<RevocationLogPage> {
    const head = await revocationHead(this.#kv);
    const upTo = Math.min(head.seq, after + limit);
    const entries = upTo > after ? await listRevocations(this.#kv, after, upTo) : [];
    return { head, upTo, entries };
  }
}
