/**
 * `deno task start` caps V8's young generation (README, Memory): a process started with the start
 * task's arguments keeps its new space small under a stream of short-lived allocations, in the main
 * isolate and in a worker (render workers are workers), where the default grows it to 64 MiB.
 */
import assert from "node:assert/strict";
import { startTaskArgs } from "../_helpers/process.ts";

const PROBE = `
import { getHeapSpaceStatistics } from "node:v8";
// Generations of objects that each survive one round: V8 grows the young generation for this
// (to 64 MiB without the flag on deno 2.9), as it does under a stream of renders.
const churn = () => {
  let live = [];
  for (let round = 0; round < 30; round++) {
    const next = [];
    for (let i = 0; i < 300000; i++) next.push({ i, s: "x" + i });
    live = next;
  }
  return live.length;
};
const newSpace = () =>
  getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
if (self.name === "probe-worker") {
  churn();
  self.postMessage(newSpace());
} else {
  churn();
  const main = newSpace();
  const worker = new Worker(import.meta.url, { type: "module", name: "probe-worker" });
  const inWorker = await new Promise((r) => worker.onmessage = (e) => r(e.data));
  worker.terminate();
  console.log(JSON.stringify({ main, inWorker }));
}
`;

Deno.test("the start task's V8 flags bound the young generation of the main thread and workers", async () => {
  const args = await startTaskArgs();
  assert.equal(args.at(-1), "main.ts");
  const dir = await Deno.makeTempDir();
  try {
    const probe = `${dir}/probe.ts`;
    await Deno.writeTextFile(probe, PROBE);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...args.slice(0, -1), probe],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const { main, inWorker } = JSON.parse(text) as { main: number; inWorker: number };
    const MIB = 1024 * 1024;
    // Two or three semi-spaces of at most 8 MiB each.
    assert.ok(main > 0 && main <= 24 * MIB, `main new space ${main / MIB} MiB`);
    assert.ok(inWorker > 0 && inWorker <= 24 * MIB, `worker new space ${inWorker / MIB} MiB`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
