/**
 * Runs before the suite (`deno task test`): makes sure the real parts the tests use are there —
 * a Redis server on TEST_REDIS_URL (started from the installed redis-server if none answers),
 * Debian's Chromium for the browser tests, Debian's `admesh` for the STL export checks and
 * Debian's HAProxy for the load-balancer test (installed with apt-get when running as root; admesh
 * is required only in CI). Prints
 * what it did; exits non-zero with the fix when it cannot.
 */
const redisUrl = new URL(Deno.env.get("TEST_REDIS_URL") ?? "redis://127.0.0.1:6379");
const chromium = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

async function redisAnswers(): Promise<boolean> {
  try {
    const conn = await Deno.connect({
      hostname: redisUrl.hostname,
      port: Number(redisUrl.port || 6379),
    });
    await conn.write(new TextEncoder().encode("PING\r\n"));
    const buf = new Uint8Array(16);
    const n = await conn.read(buf);
    conn.close();
    return new TextDecoder().decode(buf.subarray(0, n ?? 0)).startsWith("+PONG");
  } catch {
    return false;
  }
}

async function run(cmd: string, args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "inherit", stderr: "inherit" })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

const problems: string[] = [];

if (!await redisAnswers()) {
  console.log(`ensure_env: no Redis at ${redisUrl.host}; starting redis-server`);
  const port = redisUrl.port || "6379";
  await run("redis-server", [
    "--daemonize",
    "yes",
    "--bind",
    redisUrl.hostname,
    "--port",
    port,
    "--save",
    "",
    "--appendonly",
    "no",
  ]);
  for (let i = 0; i < 50 && !await redisAnswers(); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!await redisAnswers()) {
    problems.push(
      "Redis is not reachable and redis-server could not start it (apt-get install -y redis-server).",
    );
  }
}

if (!await exists(chromium)) {
  if (Deno.uid?.() === 0) {
    console.log("ensure_env: installing Debian chromium for the browser tests");
    await run("apt-get", ["update", "-q"]);
    await run("apt-get", ["install", "-y", "-q", "chromium"]);
  }
  if (!await exists(chromium)) {
    problems.push(`Chromium is missing at ${chromium}: apt-get install -y chromium`);
  }
}

// The STL exports are checked by admesh (tests/kernel/export_tools_test.ts); required in CI.
if (!await exists("/usr/bin/admesh")) {
  if (Deno.uid?.() === 0) {
    console.log("ensure_env: installing Debian admesh for the STL export checks");
    await run("apt-get", ["update", "-q"]);
    await run("apt-get", ["install", "-y", "-q", "admesh"]);
  }
  if (!await exists("/usr/bin/admesh")) {
    const fix = "admesh is missing: apt-get install -y admesh";
    if (Deno.env.get("CI")) problems.push(fix);
    else console.log(`ensure_env: ${fix} (the STL checks are skipped without it)`);
  }
}

// The 3MF exports are also read by PrusaSlicer's CLI (tests/kernel/export_tools_test.ts).
if (!await exists("/usr/bin/prusa-slicer")) {
  if (Deno.uid?.() === 0) {
    console.log("ensure_env: installing Debian prusa-slicer for the 3MF export checks");
    await run("apt-get", ["update", "-q"]);
    await run("apt-get", ["install", "-y", "-q", "--no-install-recommends", "prusa-slicer"]);
  }
  if (!await exists("/usr/bin/prusa-slicer")) {
    const fix = "prusa-slicer is missing: apt-get install -y --no-install-recommends prusa-slicer";
    if (Deno.env.get("CI")) problems.push(fix);
    else console.log(`ensure_env: ${fix} (the slicer check of 3MF is skipped without it)`);
  }
}

if (!await exists("/usr/sbin/haproxy")) {
  if (Deno.uid?.() === 0) {
    console.log("ensure_env: installing Debian haproxy for the load-balancer test");
    await run("apt-get", ["update", "-q"]);
    await run("apt-get", ["install", "-y", "-q", "haproxy"]);
  }
  if (!await exists("/usr/sbin/haproxy")) {
    problems.push("HAProxy is missing: apt-get install -y haproxy");
  }
}

if (problems.length) {
  console.error(problems.map((p) => `ensure_env: ${p}`).join("\n"));
  Deno.exit(1);
}
