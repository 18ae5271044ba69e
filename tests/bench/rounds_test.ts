import assert from "node:assert/strict";
import { rotateRounds, type RoundRedo } from "../../bench/rounds.ts";

/** Sides that record the order they ran in and return a running count per side. */
function countingSides(n: number, log: string[]) {
  const calls = Array.from({ length: n }, () => 0);
  return Array.from({ length: n }, (_, side) => () => {
    log.push(`s${side}`);
    return Promise.resolve(`s${side}#${calls[side]++}`);
  });
}

Deno.test("bench rounds - every round runs every side, the first side rotating", async () => {
  const log: string[] = [];
  const kept: number[] = [];
  const out = await rotateRounds(3, countingSides(2, log), (round) => kept.push(round));
  assert.deepEqual(log, ["s0", "s1", "s1", "s0", "s0", "s1"]);
  assert.deepEqual(out, [["s0#0", "s0#1", "s0#2"], ["s1#0", "s1#1", "s1#2"]]);
  assert.deepEqual(kept, [1, 2, 3]);
});

Deno.test("bench rounds - an unfit round runs again with its rotation; its figures are dropped", async () => {
  const log: string[] = [];
  const kept: number[] = [];
  const redo: RoundRedo<string> = {
    // The second run of side 1 is unfit, once.
    reason: (figures) => figures[1] === "s1#1" ? "spread" : undefined,
    max: 5,
    redone: [],
  };
  const out = await rotateRounds(3, countingSides(2, log), (round) => kept.push(round), redo);
  assert.deepEqual(log, ["s0", "s1", "s1", "s0", "s1", "s0", "s0", "s1"]);
  assert.deepEqual(out, [["s0#0", "s0#2", "s0#3"], ["s1#0", "s1#2", "s1#3"]]);
  assert.deepEqual(kept, [1, 2, 3]);
  assert.deepEqual(redo.redone, ["round 2: spread"]);
});

Deno.test("bench rounds - once the redos are spent, unfit rounds are kept", async () => {
  const log: string[] = [];
  const redo: RoundRedo<string> = { reason: () => "always", max: 2, redone: [] };
  const out = await rotateRounds(2, countingSides(1, log), undefined, redo);
  assert.deepEqual(log.length, 4);
  assert.deepEqual(out, [["s0#2", "s0#3"]]);
  assert.deepEqual(redo.redone, ["round 1: always", "round 1: always"]);
});
