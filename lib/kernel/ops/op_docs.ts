/**
 * The op tables of docs/dag.md, written from the specs: one table per docs section, one row per
 * op (what it makes, its members with their ranges and defaults, its result type). The tables sit
 * between marker comments in the hand-written document; `dag_schema_gen.ts` rewrites them and a
 * test fails when the committed document is stale. Member phrases are shared with the schema's
 * member descriptions.
 */
import { DEFAULT_DAG_LIMITS } from "../../dag/dag_limits.ts";
import { OPS } from "./mod.ts";
import {
  describeType,
  type Member,
  type OpSpec,
  type Range,
  resolveBound,
  type Result,
  type Section,
} from "./op_spec.ts";

/** The marker lines around the generated tables in docs/dag.md. */
export const OPS_BEGIN =
  "<!-- ops:begin (generated from lib/kernel/ops by `deno task dag-schema`) -->";
/** The end marker. */
export const OPS_END = "<!-- ops:end -->";

/** Each docs section: its heading and what follows its table. */
const SECTIONS: Record<Section, { heading: string; after?: string }> = {
  expressions: { heading: "Parameters and expressions" },
  profiles: { heading: "2D profiles (in the XY plane)" },
  solids: { heading: "3D solids" },
  repeats: {
    heading: "Repeats (instancing)",
    after: "A repeat's result is _instances_: the child's mesh plus one 4×4 transform per " +
      "instance. A part made from instances is sent as one mesh and N transforms; the viewer " +
      "draws it with instancing.",
  },
  output: { heading: "Output" },
};

/** A number in the docs' style: 10 000, 1e6. */
export function formatNumber(n: number): string {
  if (Math.abs(n) >= 1e6 && Number.isInteger(Math.log10(Math.abs(n)))) {
    return `${n < 0 ? "-" : ""}1e${Math.log10(Math.abs(n))}`;
  }
  return Math.abs(n) >= 10_000 ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, " ") : String(n);
}

/** A range in words, limits at their defaults: "> 0", "integer 3–256", "0 < d ≤ 360". */
export function rangePhrase(range: Range, variable: string): string {
  const bound = (b: number | undefined) => b === undefined ? undefined : formatNumber(b);
  const ge = bound(range.ge === undefined ? undefined : resolveBound(range.ge, DEFAULT_DAG_LIMITS));
  const le = bound(range.le === undefined ? undefined : resolveBound(range.le, DEFAULT_DAG_LIMITS));
  const gt = bound(range.gt);
  let text = "";
  if (range.int && ge !== undefined && le !== undefined) text = `${ge}–${le}`;
  else if (gt !== undefined && le !== undefined) text = `${gt} < ${variable} ≤ ${le}`;
  else if (ge !== undefined && le !== undefined) text = `${ge} ≤ ${variable} ≤ ${le}`;
  else if (gt !== undefined) text = `> ${gt}`;
  else if (ge !== undefined) text = `≥ ${ge}`;
  else if (le !== undefined) text = `≤ ${le}`;
  const words = [range.int ? (text ? `integer ${text}` : "integer") : text];
  if (range.nonZero) words.push("non-zero");
  return words.filter(Boolean).join(", ");
}

function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.join(", ")}]`;
  return typeof value === "string" ? `\`${value}\`` : String(value);
}

/** What a member takes beyond its name, as a list of phrases (kind, range, default, doc). */
export function memberPhrases(name: string, member: Member): string[] {
  const phrases: string[] = [];
  const article = (mask: number) => `a ${describeType(mask)}`;
  switch (member.kind) {
    case "num":
      if (member.range) phrases.push(rangePhrase(member.range, name[0]));
      break;
    case "vec":
      if (member.range) phrases.push(`each ${rangePhrase(member.range, name[0])}`);
      break;
    case "str":
      if (member.color) phrases.push("`#rrggbb`");
      break;
    case "choice":
      phrases.push(member.choices.map((c) => `\`${c}\``).join(" \\| "));
      break;
    case "nums":
      phrases.push(`${member.min}–${member.max} numbers`);
      break;
    case "points":
      phrases.push(`3–${formatNumber(DEFAULT_DAG_LIMITS.maxPolygonPoints)} [x, y] points`);
      break;
    case "ref":
      phrases.push(article(member.type));
      break;
    case "refs":
      phrases.push(`${member.min}–${member.max}, each ${article(member.type)}`);
      break;
    case "literal":
      phrases.push("a literal");
      break;
    case "name":
      phrases.push("a parameter name");
      break;
  }
  if (member.default !== undefined) phrases.push(`default ${literal(member.default)}`);
  else if (member.optional && !member.doc?.startsWith("default")) phrases.push("optional");
  if (member.doc) phrases.push(member.doc);
  return phrases;
}

/** A member as the docs list it: `` `size` [x, y] (each > 0) ``. */
function memberText(name: string, member: Member): string {
  const shape = member.kind === "vec"
    ? ` ${member.axes ?? (member.n === 2 ? "[x, y]" : "[x, y, z]")}`
    : "";
  const phrases = memberPhrases(name, member);
  return `\`${name}\`${shape}${phrases.length ? ` (${phrases.join(", ")})` : ""}`;
}

/** A result type in words. */
export function resultText(result: Result): string {
  if (typeof result === "number") return describeType(result);
  if (result === "param") return "the fallback's type";
  if (result === "child") return "the child's type";
  return "the branches' type";
}

function row(name: string, spec: OpSpec): string {
  const members = Object.entries(spec.members).map(([key, m]) => memberText(key, m)).join(", ");
  return `| \`${name}\` | ${spec.doc} | ${members} | ${resultText(spec.result)} |`;
}

/**
 * The generated part of docs/dag.md (between the markers), unformatted: `deno fmt` aligns it.
 *
 * @example
 * ```ts
 * opTablesMarkdown().startsWith("### Parameters and expressions"); // true
 * ```
 */
export function opTablesMarkdown(): string {
  const out: string[] = [];
  for (const [section, { heading, after }] of Object.entries(SECTIONS)) {
    const rows = Object.entries(OPS).filter(([, spec]) => spec.section === section);
    out.push(`### ${heading}`, "");
    out.push("| op | makes | members | result |", "| --- | --- | --- | --- |");
    out.push(...rows.map(([name, spec]) => row(name, spec)), "");
    if (after) out.push(after, "");
  }
  return out.join("\n").trimEnd();
}

/**
 * `markdown` with the text between the op-table markers replaced by `opTablesMarkdown()`.
 *
 * @example
 * ```ts
 * const fresh = withOpTables(await Deno.readTextFile("docs/dag.md"));
 * ```
 */
export function withOpTables(markdown: string): string {
  const begin = markdown.indexOf(OPS_BEGIN);
  const end = markdown.indexOf(OPS_END);
  if (begin < 0 || end < begin) throw new Error("docs/dag.md has no op-table markers");
  return `${markdown.slice(0, begin + OPS_BEGIN.length)}\n\n${opTablesMarkdown()}\n\n${
    markdown.slice(end)
  }`;
}
