/**
 * Retrying Deno KV calls that SQLite refused as busy. Several processes may share one KV file
 * (two nodes on one machine, the CLI beside a running hub). Deno KV already waits up to 5 s for a
 * lock, but SQLite refuses at once, without waiting, a write transaction whose snapshot another
 * process changed (SQLITE_BUSY_SNAPSHOT), which surfaces as `TypeError: database is locked`. A
 * refused call applied nothing, so calling it again is safe; atomic operations keep their checks,
 * so a retried commit is still all-or-nothing.
 */

/** How many times a busy call is tried in all. */
export const KV_BUSY_ATTEMPTS = 4;

/** Whether `err` is SQLite's "busy" refusal as Deno KV reports it. */
export function isKvBusy(err: unknown): boolean {
  return err instanceof Error && /database is (locked|busy)/i.test(err.message);
}

async function retryBusy<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!isKvBusy(err) || attempt >= KV_BUSY_ATTEMPTS) throw err;
      // Jittered backoff, so that two refused writers do not collide again.
      await new Promise((r) => setTimeout(r, (10 << attempt) * (0.5 + Math.random())));
    }
  }
}

const RETRIED = new Set(["get", "getMany", "set", "delete"]);

/** `kv` with its reads, writes and atomic commits retried when SQLite refuses them as busy. */
export function withKvBusyRetry(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => retryBusy(commit);
          return op;
        };
      }
      if (typeof prop === "string" && RETRIED.has(prop)) {
        return (...args: unknown[]) => retryBusy(() => value.apply(target, args));
      }
      return value.bind(target);
    },
  });
}
