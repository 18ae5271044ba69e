/**
 * A private `redis-server` for fault tests: started on a free loopback port, without persistence,
 * so a test can stop it, stall it (`SIGSTOP`, what a partition or a hung primary looks like to a
 * client), wipe it (`FLUSHALL`) or restart it empty, and never touches the shared server.
 */
import { redisCommand } from "./redis.ts";

/** A `redis-server` process owned by one test. */
export class PrivateRedis {
  /** The TCP port it listens on (kept across restarts). */
  readonly port: number;
  #child?: Deno.ChildProcess;
  #paused = false;

  private constructor(port: number) {
    this.port = port;
  }

  /** Starts a server on a free port and waits until it answers PING. */
  static async start(): Promise<PrivateRedis> {
    const server = new PrivateRedis(freePort());
    await server.#spawn();
    return server;
  }

  /** `redis://127.0.0.1:<port>`. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Whether the process is running (paused counts as running). */
  get running(): boolean {
    return this.#child !== undefined;
  }

  /** Freezes the process (`SIGSTOP`): connections stay open and nothing is answered. */
  pause(): void {
    this.#child?.kill("SIGSTOP");
    this.#paused = true;
  }

  /** Lets a paused process go on (`SIGCONT`). */
  resume(): void {
    this.#child?.kill("SIGCONT");
    this.#paused = false;
  }

  /** Deletes every key (`FLUSHALL`), as a failover to an empty replica or an operator would. */
  async flushAll(): Promise<void> {
    await this.command(["FLUSHALL"]);
  }

  /** Sends one command on a fresh connection and returns its reply. */
  command(args: string[]): Promise<unknown> {
    return redisCommand(this.url, args);
  }

  /** Kills the process (`SIGKILL`): connections are refused until `restart`. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    if (this.#paused) this.resume();
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await child.status;
  }

  /** Kills the process and starts an empty one on the same port. */
  async restart(): Promise<void> {
    await this.stop();
    await this.#spawn();
  }

  async #spawn(): Promise<void> {
    this.#child = new Deno.Command("redis-server", {
      args: [
        "--port",
        String(this.port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
      ],
      stdout: "null",
      stderr: "null",
    }).spawn();
    this.#paused = false;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: this.port });
        conn.close();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    await this.stop();
    throw new Error(`redis-server did not start on port ${this.port}`);
  }
}

/** A port that was free a moment ago (the OS picks it; the listener is closed at once). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
