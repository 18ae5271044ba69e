import assert from "node:assert/strict";
import { AfterAnswers } from "@/lib/render/after_answers.ts";

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("after answers - work runs in a later task, exactly once, or at once when asked for", async () => {
  const after = new AfterAnswers();
  const ran: string[] = [];
  after.later("a", () => ran.push("a"));
  after.later("b", () => ran.push("b"));
  await Promise.resolve();
  assert.deepEqual(ran, [], "not in this task's microtasks");
  after.now("b");
  assert.deepEqual(ran, ["b"]);
  after.now("b");
  after.now("absent");
  assert.equal(after.size, 1);
  await nextTask();
  assert.deepEqual(ran, ["b", "a"], "each piece once");
  assert.equal(after.size, 0);
});

Deno.test("after answers - flush runs everything waiting; work under a reused name still runs once each", async () => {
  const after = new AfterAnswers();
  const ran: number[] = [];
  after.later("k", () => ran.push(1));
  after.later("k", () => ran.push(2));
  after.later("m", () => ran.push(3));
  after.flush();
  assert.deepEqual(ran.sort(), [2, 3], "the latest under each name");
  await nextTask();
  assert.deepEqual(ran.sort(), [1, 2, 3], "the replaced one on its own timer");
  assert.equal(after.size, 0);
});
