/**
 * Which form of the render response a request gets (docs/api.md, render): the binary form
 * (`application/vnd.cad-render`, lib/dag/render_binary.ts) when the `Accept` header weighs it
 * above zero and at least as high as JSON, else JSON, the default (also for no `Accept`, `*\/*`
 * and types we do not serve).
 */
import { RENDER_BINARY_TYPE } from "../dag/render_binary.ts";
import { headerMemo } from "../http/header_memo.ts";
import type { RenderForm } from "./render_response_bytes.ts";

/**
 * The form for an `Accept` value.
 *
 * @example
 * ```ts
 * negotiateRenderForm("application/vnd.cad-render, application/json;q=0.5"); // "binary"
 * negotiateRenderForm("application/json"); // "json"
 * ```
 */
export function negotiateRenderForm(accept: string | null | undefined): RenderForm {
  return accept ? formOf(accept) : "json";
}

// Weighed once per distinct value (lib/http/header_memo.ts).
const formOf = headerMemo((accept): RenderForm => {
  let binary = 0;
  let json = 0;
  for (const item of accept.split(",")) {
    const [type, ...params] = item.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!(weight >= 0 && weight <= 1)) continue;
    const name = type.trim();
    if (name === RENDER_BINARY_TYPE) binary = Math.max(binary, weight);
    else if (name === "application/json") json = Math.max(json, weight);
  }
  return binary > 0 && binary >= json ? "binary" : "json";
});
