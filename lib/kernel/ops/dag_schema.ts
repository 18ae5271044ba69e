/**
 * The JSON Schema (2020-12) of a DAG v1 document, derived from the op specs: each op's members
 * with their kinds, ranges (limits at their defaults) and required set, as
 * `lib/dag/dag.schema.json` (served at `/schemas/dag-v1.json`). `dag_schema_gen.ts` writes it; a test fails when the
 * committed file is stale. What JSON Schema cannot say (references, types of referenced nodes,
 * cycles, rules spanning members) is named in its description and left to `validateDag`.
 */
import { RESERVED_NAMES } from "../../dag/dag_errors.ts";
import { DEFAULT_DAG_LIMITS } from "../../dag/dag_limits.ts";
import { COLOR_PATTERN } from "../../dag/dag_types.ts";
import { OPS } from "./mod.ts";
import { formatNumber, memberPhrases, resultText } from "./op_docs.ts";
import { isRequired, type Member, type Range, resolveBound } from "./op_spec.ts";

type Json = Record<string, unknown>;

const LIMITS = DEFAULT_DAG_LIMITS;
const def = (name: string): Json => ({ $ref: `#/$defs/${name}` });
const REF = def("ref");

/** A number literal within `range` (and ±maxAbsNumber). */
function numberLiteral(range: Range | undefined): Json {
  const out: Json = { type: range?.int ? "integer" : "number" };
  const max = LIMITS.maxAbsNumber;
  if (range?.gt !== undefined) out.exclusiveMinimum = range.gt;
  else out.minimum = range?.ge !== undefined ? resolveBound(range.ge, LIMITS) : -max;
  out.maximum = range?.le !== undefined ? resolveBound(range.le, LIMITS) : max;
  if (range?.nonZero) out.not = { const: 0 };
  return out;
}

/** A number argument: a literal within `range`, or a reference. */
function numberArg(range: Range | undefined): Json {
  return range === undefined ? def("number") : { anyOf: [numberLiteral(range), REF] };
}

const array = (items: Json, min: number, max: number): Json => ({
  type: "array",
  items,
  minItems: min,
  maxItems: max,
});

/** The schema of one member. */
function memberSchema(name: string, member: Member): Json {
  let schema: Json;
  switch (member.kind) {
    case "num":
      schema = numberArg(member.range);
      break;
    case "vec":
      schema = array(numberArg(member.range), member.n, member.n);
      break;
    case "bool":
      schema = def("boolean");
      break;
    case "str":
      schema = member.color
        ? { anyOf: [{ type: "string", pattern: COLOR_PATTERN.source }, REF] }
        : def("stringArg");
      break;
    case "choice":
      schema = { enum: [...member.choices] };
      break;
    case "nums":
      schema = array(def("number"), member.min, member.max);
      break;
    case "points":
      schema = array(array(def("number"), 2, 2), 3, LIMITS.maxPolygonPoints);
      break;
    case "ref":
      schema = REF;
      break;
    case "refs":
      schema = array(REF, member.min, member.max);
      break;
    default:
      schema = def(member.kind); // value, literal, name
  }
  const phrases = memberPhrases(name, member);
  return phrases.length
    ? { description: phrases.join("; ").replaceAll("\\|", "|"), ...schema }
    : schema;
}

/**
 * The DAG v1 JSON Schema as data.
 *
 * @example
 * ```ts
 * new Ajv2020({ strict: true }).compile(dagSchema());
 * ```
 */
export function dagSchema(): Json {
  const ops: Json = {};
  for (const [name, spec] of Object.entries(OPS)) {
    const properties: Json = { op: { const: name } };
    for (const [key, member] of Object.entries(spec.members)) {
      properties[key] = memberSchema(key, member);
    }
    const required = Object.entries(spec.members).filter(([, m]) => isRequired(m));
    ops[`op_${name}`] = {
      description: `${spec.doc} Result: ${resultText(spec.result)}.`,
      type: "object",
      properties,
      required: ["op", ...required.map(([key]) => key)],
      additionalProperties: false,
    };
  }
  const literals = [
    { type: "number", minimum: -LIMITS.maxAbsNumber, maximum: LIMITS.maxAbsNumber },
    { type: "boolean" },
    def("string"),
  ];
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "/schemas/dag-v1.json",
    title: "Parametric CAD DAG, version 1",
    description: "A parametric part or assembly as a graph of nodes (docs/dag.md). This schema " +
      "checks the shape of the document and the ranges of literals. The kernel also checks " +
      "what JSON Schema cannot express: references name existing nodes of the right result " +
      "type, they form no cycle, `output` names an assembly, part names are unique in an " +
      "assembly, the rules between members of a node (a corner radius within half the side, a " +
      "grid within its limit, a non-zero mirror normal, min ≤ max), literal polygons are " +
      "counter-clockwise, nested repeats stay ≤ " +
      `${formatNumber(LIMITS.maxInstancesPerPart)} instances per part, and the DAG with every ` +
      `reference inlined stays ≤ ${formatNumber(LIMITS.maxExpandedCost)} nodes.`,
    type: "object",
    required: ["dag", "nodes", "output"],
    additionalProperties: false,
    properties: {
      dag: { description: "The format version.", const: 1 },
      nodes: {
        description: `Nodes by id (at most ${formatNumber(LIMITS.maxNodes)}).`,
        type: "object",
        maxProperties: LIMITS.maxNodes,
        propertyNames: def("name"),
        additionalProperties: def("node"),
      },
      output: {
        description: "The id of the assembly node the kernel evaluates.",
        $ref: "#/$defs/name",
      },
    },
    $defs: {
      name: {
        description: "A node id or parameter name: 1–64 of [A-Za-z0-9_.-], not an " +
          "Object.prototype member name.",
        type: "string",
        pattern: "^[A-Za-z0-9_.-]{1,64}$", // isValidName's pattern (lib/dag/dag_errors.ts)
        not: { enum: [...RESERVED_NAMES] },
      },
      ref: {
        description: 'A reference to another node: {"ref": "<id>"}. The node must exist, must ' +
          "not lead back here (no cycles), and must produce the type the member expects.",
        type: "object",
        properties: { ref: def("name") },
        required: ["ref"],
        additionalProperties: false,
      },
      number: {
        description: `A finite number with |x| ≤ ${formatNumber(LIMITS.maxAbsNumber)}, or a ` +
          "reference to a number.",
        anyOf: [numberLiteral(undefined), REF],
      },
      boolean: {
        description: "true, false, or a reference to a boolean.",
        anyOf: [{ type: "boolean" }, REF],
      },
      string: {
        description: `A string of at most ${LIMITS.maxStringLength} characters.`,
        type: "string",
        maxLength: LIMITS.maxStringLength,
      },
      stringArg: {
        description: `A string of at most ${LIMITS.maxStringLength} characters, or a reference ` +
          "to a string.",
        anyOf: [def("string"), REF],
      },
      literal: { description: "A number, boolean or string literal.", anyOf: literals },
      value: {
        description: "A number, boolean or string literal, or a reference.",
        anyOf: [...literals, REF],
      },
      ...ops,
      node: {
        description: "A node: an op and exactly that op's members.",
        type: "object",
        required: ["op"],
        properties: { op: { enum: Object.keys(OPS) } },
        allOf: Object.keys(OPS).map((name) => ({
          if: { properties: { op: { const: name } } },
          then: def(`op_${name}`),
        })),
      },
    },
  };
}
