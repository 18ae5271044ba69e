/**
 * AR tickets (docs/security.md, AR tickets): short-lived capability URLs of one configuration's
 * GLB for Android's Scene Viewer, which fetches the model itself with neither the page's token nor
 * its Origin. A ticket is 128 random bits (22 base64url characters); it names the GLB bytes
 * themselves, stored in Redis for `AR_TICKET_TTL_SECONDS` (every kernel node reads them), or in
 * this process when `REDIS_URL` is unset. Fetching a ticket does not consume it: Scene Viewer may
 * fetch twice within the lifetime, and nothing is paid again.
 */
import { LRUCache } from "lru-cache";
import { Buffer } from "node:buffer";
import { AppError } from "../http/problem.ts";
import type { RedisClient } from "../redis/client.ts";

/** How long a ticket can be fetched, in seconds (docs/security.md). */
export const AR_TICKET_TTL_SECONDS = 300;

/** A ticket's id: 22 base64url characters (128 bits). */
const TICKET = /^[A-Za-z0-9_-]{22}$/;

/** An issued ticket. */
export interface ArTicket {
  /** The ticket's id (the path segment before `.glb`). */
  ticket: string;
  /** When the ticket stops working, in milliseconds since the epoch. */
  expiresAt: number;
}

/** A ticket's model and lifetime. */
export interface ArTicketModel {
  file: Uint8Array;
  expiresAt: number;
}

/** Where tickets live and how long. */
export interface ArTicketOptions {
  /** Absent: tickets live in this process (one node only). */
  redis?: RedisClient;
  prefix: string;
  /** Lifetime in milliseconds. Default `AR_TICKET_TTL_SECONDS` seconds. */
  ttlMs?: number;
  /** In-process bound in bytes (without Redis). Default 64 MiB. */
  memoryMaxBytes?: number;
}

/** Whether `value` has the shape of a ticket id. */
export function isArTicketId(value: string): boolean {
  return TICKET.test(value);
}

/** Issues and reads AR tickets. */
export class ArTickets {
  readonly #redis?: RedisClient;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #memory: LRUCache<string, ArTicketModel>;

  /** Creates the store; without `redis` tickets live in this process. */
  constructor(options: ArTicketOptions) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#ttlMs = options.ttlMs ?? AR_TICKET_TTL_SECONDS * 1000;
    this.#memory = new LRUCache<string, ArTicketModel>({
      maxSize: options.memoryMaxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (m) => Math.max(1, m.file.length),
    });
  }

  /** The lifetime of a new ticket, in milliseconds. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /**
   * Stores `file` under a new ticket. Throws `service_unavailable` when Redis cannot store it.
   *
   * @example
   * ```ts
   * const { ticket, expiresAt } = await tickets.issue(glb);
   * ```
   */
  async issue(file: Uint8Array): Promise<ArTicket> {
    const ticket = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
    const expiresAt = Date.now() + this.#ttlMs;
    if (!this.#redis) {
      this.#memory.set(ticket, { file, expiresAt }, { ttl: this.#ttlMs });
      return { ticket, expiresAt };
    }
    const value = `${expiresAt}:${
      Buffer.from(file.buffer, file.byteOffset, file.length).toString("base64")
    }`;
    try {
      await this.#redis.set(this.#key(ticket), value, {
        expiration: { type: "PX", value: this.#ttlMs },
      });
    } catch (err) {
      throw new AppError(
        "service_unavailable",
        "The AR model could not be stored; retry with the same Idempotency-Key.",
        { cause: err },
      );
    }
    return { ticket, expiresAt };
  }

  /**
   * The model of a live ticket, or null (unknown, expired or malformed). Throws
   * `service_unavailable` when Redis cannot be read.
   *
   * @example
   * ```ts
   * const model = await tickets.get("q3JzZ0v8xZ1hS9bJm2a1Qw");
   * ```
   */
  async get(ticket: string): Promise<ArTicketModel | null> {
    if (!isArTicketId(ticket)) return null;
    if (!this.#redis) return this.#memory.get(ticket) ?? null;
    let value: unknown;
    try {
      value = await this.#redis.get(this.#key(ticket));
    } catch (err) {
      throw new AppError("service_unavailable", "AR models cannot be read; retry shortly.", {
        cause: err,
      });
    }
    if (typeof value !== "string") return null;
    const colon = value.indexOf(":");
    const expiresAt = Number(value.slice(0, colon));
    if (colon < 1 || !Number.isFinite(expiresAt) || expiresAt <= Date.now()) return null;
    return { file: new Uint8Array(Buffer.from(value.slice(colon + 1), "base64")), expiresAt };
  }

  #key(ticket: string): string {
    return `${this.#prefix}arTicket:v1:${ticket}`;
  }
}
