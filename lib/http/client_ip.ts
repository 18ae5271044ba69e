/**
 * The client's IP address, for per-client limits (browser-flow mints, failed sign-ins). By default
 * it is the socket peer: the one address a client cannot choose. `X-Forwarded-For` is believed only
 * as far as the operator says its proxies reach (`TRUSTED_PROXIES`), and it is read the way nginx's
 * `real_ip_recursive on` and Express's `trust proxy` read it: from the right, each trusted proxy
 * vouches for the address to its left, and the first address that is not a trusted proxy is the
 * client. Everything further left was written by the client itself and is never believed, so a
 * forged `X-Forwarded-For` cannot buy a fresh limit. See docs/security.md, "Client IP".
 */
import { BlockList, isIP } from "node:net";
import type { Context } from "hono";
import { LRUCache } from "lru-cache";

/** A `TRUSTED_PROXIES` value that cannot be used; the message says which entry and why. */
export class TrustedProxiesError extends TypeError {}

/** Named address ranges, as Express's `trust proxy` names them. */
const PRESETS: Record<string, readonly string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

/** Most proxy hops a hop count may name (a longer chain is a configuration mistake). */
const MAX_HOPS = 16;

/**
 * Which peers are proxies whose `X-Forwarded-For` entry is believed: none (the default), a hop
 * count (the socket peer and the next `hops − 1` entries are proxies), or address ranges.
 *
 * @example
 * ```ts
 * const trust = TrustedProxies.parse("10.0.0.0/8, loopback");
 * trust.clientIp("10.1.2.3", "198.51.100.7, 203.0.113.9"); // "203.0.113.9"
 * ```
 */
export class TrustedProxies {
  /** The setting as it was given, normalized (for logs and docs). */
  readonly description: string;
  readonly #hops: number;
  readonly #ranges: BlockList | undefined;

  private constructor(description: string, hops: number, ranges?: BlockList) {
    this.description = description;
    this.#hops = hops;
    this.#ranges = ranges;
  }

  /** No proxy is trusted: the client is the socket peer. */
  static readonly none: TrustedProxies = new TrustedProxies("none", 0);

  /**
   * Parses `TRUSTED_PROXIES`: empty → none; a whole number → that many proxy hops; else a list
   * (commas or spaces) of IP addresses, CIDR ranges and the names `loopback`, `linklocal`,
   * `uniquelocal`. Throws `TrustedProxiesError` naming a bad entry.
   */
  static parse(text: string | undefined): TrustedProxies {
    const value = (text ?? "").trim();
    if (value === "" || value === "0") return TrustedProxies.none;
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops > MAX_HOPS) {
        throw new TrustedProxiesError(`a hop count must be from 0 to ${MAX_HOPS}, not ${value}`);
      }
      return new TrustedProxies(`${hops} hop${hops === 1 ? "" : "s"}`, hops);
    }
    const list = new BlockList();
    const entries = value.split(/[\s,]+/).filter(Boolean);
    for (const entry of entries) {
      for (const range of PRESETS[entry.toLowerCase()] ?? [entry]) addRange(list, range, entry);
    }
    return new TrustedProxies(entries.join(", "), 0, list);
  }

  /**
   * The client's address for a connection from `peer` carrying `forwardedFor` (the
   * `X-Forwarded-For` header, several headers joined by commas); "unknown" without a peer address.
   */
  clientIp(peer: string | undefined, forwardedFor: string | null): string {
    let client = peer === undefined ? null : normalizedPeer(peer);
    if (client === null) return "unknown";
    if (this.#hops === 0 && !this.#ranges) return client;
    const hops = forwardedFor === null ? [] : forwardedFor.split(",");
    for (let n = 0; this.#vouches(client, n) && hops.length > 0; n++) {
      const next = normalizeIp(hops.pop()!);
      // A trusted proxy wrote something that is not an address: its own address is the best known.
      if (next === null) return client;
      client = next;
    }
    return client;
  }

  /** Whether `address`, the `n`-th hop counted from the socket peer (0), is a trusted proxy. */
  #vouches(address: string, n: number): boolean {
    if (this.#ranges) return this.#ranges.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
    return n < this.#hops;
  }
}

function addRange(list: BlockList, range: string, entry: string): void {
  const [address, bits, ...rest] = range.split("/");
  const ip = normalizeIp(address);
  const family = ip === null ? 0 : isIP(ip);
  if (ip === null || rest.length > 0) {
    throw new TrustedProxiesError(
      `"${entry}" is not an IP address, a CIDR range (e.g. 10.0.0.0/8) or one of ` +
        `${Object.keys(PRESETS).join(", ")}`,
    );
  }
  const type = family === 6 ? "ipv6" : "ipv4";
  if (bits === undefined) {
    list.addAddress(ip, type);
    return;
  }
  const max = family === 6 ? 128 : 32;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) {
    throw new TrustedProxiesError(`"${entry}": the prefix length must be from 0 to ${max}`);
  }
  list.addSubnet(ip, Number(bits), type);
}

/** Socket peers seen lately, normalized (saves a few regular expressions and `isIP` a request). */
const peers = new LRUCache<string, { ip: string | null }>({ max: 4096 });

function normalizedPeer(peer: string): string | null {
  let known = peers.get(peer);
  if (known === undefined) {
    known = { ip: normalizeIp(peer) };
    peers.set(peer, known);
  }
  return known.ip;
}

/**
 * `text` as a bare IP address, or null: brackets, a port and an IPv6 zone are removed, an
 * IPv4-mapped IPv6 address becomes its IPv4 address, and IPv6 is lower-cased.
 */
export function normalizeIp(text: string): string | null {
  let s = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  s = s.replace(/%.*$/, "").toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (mapped) s = mapped[1];
  return isIP(s) === 0 ? null : s;
}

/**
 * The network a client address stands for in a per-client limit: an IPv4 address itself, and
 * for IPv6 its /56 prefix (one subscriber commonly holds a /56 or a /64, so counting single IPv6
 * addresses would let one host rotate through billions of fresh limits). Anything that is not an
 * address (e.g. "unknown") is returned as is.
 *
 * @example
 * ```ts
 * clientNetwork("2001:db8:1:2a00::7"); // "2001:db8:1:2a00::/56"
 * ```
 */
export function clientNetwork(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const words = ipv6Words(ip);
  return `${words[0].toString(16)}:${words[1].toString(16)}:${words[2].toString(16)}:${
    (words[3] & 0xff00).toString(16)
  }::/56`;
}

/** The eight 16-bit words of a valid IPv6 address (a dotted IPv4 tail included). */
function ipv6Words(ip: string): number[] {
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  const text = v4
    ? ip.slice(0, v4.index) +
      `${((+v4[1] << 8) | +v4[2]).toString(16)}:${((+v4[3] << 8) | +v4[4]).toString(16)}`
    : ip;
  const [head, tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((w) => parseInt(w, 16));
}

/**
 * The client IP of a request: the socket peer, or what the trusted proxies in front of it say
 * (`TRUSTED_PROXIES`). The one place routes get a client address from.
 *
 * @example
 * ```ts
 * const ip = requestClientIp(ctx, config.trustedProxies); // "203.0.113.9"
 * ```
 */
export function requestClientIp(
  ctx: Context,
  trust: TrustedProxies = TrustedProxies.none,
): string {
  const env = ctx.env as { remoteAddr?: { hostname?: string } } | undefined;
  return trust.clientIp(env?.remoteAddr?.hostname, ctx.req.header("x-forwarded-for") ?? null);
}
