import assert from "node:assert/strict";
import { formatResult, judgedRatioText } from "../../bench/report.ts";
import type { BenchResult } from "../../bench/benchmark.ts";

Deno.test("bench report - a ratio that rounds to its target shows a third decimal", () => {
  assert.equal(judgedRatioText(1.2024, 1.2), "1.202");
  assert.equal(judgedRatioText(1.1986, 1.2), "1.199");
  assert.equal(judgedRatioText(1.2, 1.2), "1.20");
  assert.equal(judgedRatioText(0.8462, 0.85), "0.846");
  assert.equal(judgedRatioText(1.137, 1.08), "1.14");
});

Deno.test("bench report - the verdict line prints the judged ratio it decided on", () => {
  const result: BenchResult = {
    title: "render-memory",
    unit: "MiB",
    decimals: 1,
    lowerIsBetter: true,
    baseline: { label: "after 10", value: 196.1 },
    candidate: { label: "after 1000", value: 235.8 },
    target: 1.2,
    summary: "",
    details: [],
    problems: [],
  };
  const [head] = formatResult("h", result);
  assert.match(head, /ratio 1\.202 \(target ≤ 1\.2\) ABOVE/);
  const floored: BenchResult = {
    ...result,
    title: "mint",
    lowerIsBetter: false,
    target: 0.85,
    floor: { label: "floor", value: 10, ratio: 0.7, candidateRatio: 0.8462 },
  };
  assert.match(formatResult("b", floored)[1], /product ÷ floor 0\.846 \(target ≥ 0\.85\) BELOW/);
});
