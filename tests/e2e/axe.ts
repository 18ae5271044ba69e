/**
 * axe-core in a playwright-core page: injects the real axe-core source (the npm package's
 * `source` string, the same file as axe.min.js) and runs it with the WCAG 2.0/2.1/2.2 A and AA
 * rules. Shared by the site's and the configurator's accessibility tests.
 */
import axe from "axe-core";
import type { Frame, Page } from "playwright-core";

/** The rule tags checked: WCAG 2.0, 2.1 and 2.2, levels A and AA. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"];

/** One rule's violation, trimmed to what a failing assertion should print. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: string; html: string; summary: string }[];
}

/** A page's outcome: the violations and how many rules passed, were incomplete or not applicable. */
export interface AxeResult {
  url: string;
  violations: AxeViolation[];
  passes: number;
  incomplete: number;
  inapplicable: number;
}

/** Options of one run: CSS selectors to leave out (e.g. another team's widget), other tags, or
 * a list of rule ids instead of tags. */
export interface AxeOptions {
  exclude?: string[];
  tags?: string[];
  rules?: string[];
}

/** axe's landmark and page-structure rules (best practice, outside the WCAG tags). */
export const LANDMARK_RULES = [
  "region",
  "landmark-one-main",
  "landmark-unique",
  "landmark-no-duplicate-banner",
  "landmark-no-duplicate-contentinfo",
  "landmark-no-duplicate-main",
  "landmark-banner-is-top-level",
  "landmark-main-is-top-level",
  "landmark-contentinfo-is-top-level",
  "landmark-complementary-is-top-level",
  "page-has-heading-one",
];

const SOURCE: string = (axe as unknown as { source: string }).source;

/** Injects axe-core (once per document) and runs the WCAG A/AA rules; returns the full result. */
export async function axeResult(
  page: Page | Frame,
  options: AxeOptions = {},
): Promise<AxeResult> {
  // Evaluated through the DevTools protocol, not a <script>: the pages' CSP (script-src with a
  // nonce) would block an injected inline script.
  const present = await page.evaluate(() => "axe" in globalThis);
  if (!present) await page.evaluate(SOURCE);
  const runOnly = options.rules
    ? { type: "rule", values: options.rules }
    : { type: "tag", values: options.tags ?? WCAG_TAGS };
  const exclude = options.exclude ?? [];
  return await page.evaluate(async ({ runOnly, exclude }) => {
    // deno-lint-ignore no-explicit-any
    const axe = (globalThis as any).axe;
    const context = exclude.length > 0
      ? { include: [document], exclude: exclude.map((s: string) => [s]) }
      : document;
    const r = await axe.run(context, { runOnly, resultTypes: ["violations"] });
    return {
      url: location.href,
      // deno-lint-ignore no-explicit-any
      violations: r.violations.map((v: any) => ({
        id: v.id,
        impact: v.impact ?? null,
        help: v.help,
        helpUrl: v.helpUrl,
        // deno-lint-ignore no-explicit-any
        nodes: v.nodes.map((n: any) => ({
          target: n.target.join(" "),
          html: String(n.html).slice(0, 300),
          summary: n.failureSummary ?? "",
        })),
      })),
      passes: r.passes.length,
      incomplete: r.incomplete.length,
      inapplicable: r.inapplicable.length,
    };
  }, { runOnly, exclude });
}

/** Runs axe-core's WCAG 2.2 AA rules on the page as it is now; returns the violations. */
export async function runAxe(
  page: Page | Frame,
  options: AxeOptions = {},
): Promise<AxeViolation[]> {
  return (await axeResult(page, options)).violations;
}

/** The violations as readable lines: rule, impact, help, and each node's selector and summary. */
export function formatViolations(violations: AxeViolation[]): string {
  return violations.map((v) =>
    `${v.id} (${v.impact}): ${v.help}\n` +
    v.nodes.map((n) => `  ${n.target}\n    ${n.summary.replaceAll("\n", "\n    ")}`).join("\n")
  ).join("\n");
}
