/**
 * The `text` profile: a string's outlines in the bundled font (`text_font.ts`), laid out and
 * flattened by `text_outline.ts`, as one CrossSection in the XY plane. Extruded, it is engraved
 * (a `difference` from a plate) or embossed (a `union` on it).
 *
 * Its limits are the DAG's (docs/dag.md, "Limits"): at most `maxTextCharacters` characters, every
 * one a character the font draws — checked on a literal by `validateDag` and on a computed string
 * (a `ParameterInput`'s value) when evaluated — and at most `maxTextVertices` points once curves
 * are flattened.
 */
import type { DagLimits } from "../../dag/dag_limits.ts";
import { evalFail } from "./values.ts";
import { bool, choice, defineOp, failDag, num, POSITIVE, PROFILE, str } from "./op_spec.ts";
import { textFont } from "./text_font.ts";
import {
  characterCount,
  type TextHAlign,
  textOutline,
  type TextVAlign,
  unsupportedCharacter,
} from "./text_outline.ts";

/** The problem a string breaks as text, or undefined: too long, or a character not drawn. */
function textProblem(
  text: string,
  limits: Pick<DagLimits, "maxTextCharacters">,
): { reason: "string_too_long" | "unsupported_character"; message: string } | undefined {
  const count = characterCount(text);
  if (count > limits.maxTextCharacters) {
    return {
      reason: "string_too_long",
      message: `Text is at most ${limits.maxTextCharacters} characters, got ${count}.`,
    };
  }
  const bad = unsupportedCharacter(text, textFont());
  if (bad !== undefined) {
    const code = bad.char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    return {
      reason: "unsupported_character",
      message: `Character ${bad.index + 1} (${JSON.stringify(bad.char)}, U+${code}) is not ` +
        "one the text font draws.",
    };
  }
  return undefined;
}

/** The text op. */
export const TEXT_OPS = {
  text: defineOp({
    doc: "A string's outlines in the bundled font (Roboto Bold), baseline along +X.",
    section: "profiles",
    result: PROFILE,
    members: {
      text: str({ doc: "characters the font draws, one visible at least (“Text” below)" }),
      size: num(POSITIVE, { what: "The text size", doc: "cap height (of “H”), mm" }),
      halign: choice(["left", "center", "right"], {
        default: "left",
        doc: "x = 0 at the start, middle or end",
      }),
      valign: choice(["baseline", "bottom", "center", "top"], {
        default: "baseline",
        doc: "y = 0 at the baseline, lowest descent, half or full cap height",
      }),
      spacing: num(undefined, { default: 0, doc: "extra space between letters, mm" }),
      tolerance: num({ ge: 0.001, le: 1 }, {
        default: 0.01,
        what: "The curve tolerance",
        doc: "largest distance of a flattened curve from the font's, mm",
      }),
      kerning: bool({ default: true, doc: "the font's pair kerning" }),
    },
    check(node, at, limits) {
      if (typeof node.text !== "string") return;
      const problem = textProblem(node.text, limits);
      if (problem) failDag(problem.reason, at("text"), problem.message);
    },
    evaluate(ctx) {
      const text = ctx.str("text");
      const problem = textProblem(text, ctx.limits);
      if (problem) evalFail("invalid_dag", problem.reason, ctx.at("text"), problem.message);
      const outline = textOutline(
        text,
        {
          size: ctx.num("size"),
          halign: ctx.choice("halign") as TextHAlign,
          valign: ctx.choice("valign") as TextVAlign,
          spacing: ctx.num("spacing"),
          tolerance: ctx.num("tolerance"),
          kerning: ctx.bool("kerning"),
        },
        textFont(),
        ctx.limits.maxTextVertices,
      );
      if (outline === undefined) {
        evalFail(
          "invalid_dag",
          "too_many_vertices",
          ctx.pointer,
          `The text's outlines exceed the limit of ${ctx.limits.maxTextVertices} points ` +
            "(fewer characters, a smaller size or a larger tolerance).",
        );
      }
      // manifold-3d cannot extrude an empty profile (nor is there an empty solid to engrave).
      if (outline.contours.length === 0) {
        evalFail(
          "render_failed",
          "empty_geometry",
          ctx.at("text"),
          "The text draws nothing: it is empty or only spaces.",
        );
      }
      return ctx.newProfile(new ctx.rt.CrossSection(outline.contours, "NonZero"));
    },
  }),
};
