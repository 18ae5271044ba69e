/** Zod validation that fails with a `validation_failed` problem listing JSON pointers. */
import type { z } from "zod";
import { AppError } from "./problem.ts";

/** One field-level validation failure, addressed by RFC 6901 JSON pointer. */
export interface FieldError {
  pointer: string;
  detail: string;
}

/** Parses `value` with `schema` or throws `validation_failed` with every failing field. */
export function validate<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what = "request body",
): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => {
    const base = "/" +
      issue.path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
    if (issue.code === "unrecognized_keys") {
      return {
        pointer: base === "/" ? "" : base,
        detail: `unknown field(s): ${issue.keys.join(", ")}`,
      };
    }
    return { pointer: base === "/" ? "" : base, detail: issue.message };
  });
  const first = errors[0];
  throw new AppError(
    "validation_failed",
    `The ${what} is invalid: ${first.pointer || "(root)"} ${first.detail}` +
      (errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""),
    { extensions: { errors } },
  );
}
