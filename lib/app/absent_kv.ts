/**
 * The `kv` of a kernel node (`ROLE=kernel`), which opens no Deno KV: it reads what is durable from
 * the hub over HTTP (lib/render/hub_link.ts). The routes that use KV are served by the hub only,
 * so nothing on a kernel node reaches this; if something does, it fails at once with a message
 * that names the cause, instead of a store being created where the node should hold none.
 */

/** The error every use of a kernel node's absent KV throws. */
export class AbsentKvError extends Error {
  /** Stable code for callers that switch on it. */
  readonly code = "kv_absent";
}

/** A `Deno.Kv` whose every member throws `AbsentKvError` (closing it is allowed and does nothing). */
export function absentKv(): Deno.Kv {
  // A Proxy, because no partial object could claim to be a Deno.Kv honestly: every member throws.
  return new Proxy({} as Deno.Kv, {
    get(_target, member) {
      if (member === "close") return () => {};
      // Awaiting the object probes `then`: it is not a promise.
      if (member === "then") return undefined;
      throw new AbsentKvError(
        `a kernel node (ROLE=kernel) holds no Deno KV; ${String(member)} is not available here`,
      );
    },
  });
}
