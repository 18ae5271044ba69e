/**
 * Whether two render results draw the same picture, so that the view need not draw the second:
 * the answer to a previewed color pick (lib/client/color_preview.ts). Its own module, imported by
 * the view alone, so that it travels in the view's lazy chunk and adds no chunk shared with the
 * configurator's bundle.
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { RenderResult } from "./render_result.ts";

/**
 * Whether `a` and `b` draw the same picture: the same parts (name, color, mesh, placements) and
 * the same bounds. The answer to a previewed color pick draws what the preview drew
 * (lib/client/color_preview.ts), and the view need not draw it again.
 *
 * @example
 * ```ts
 * if (!drawsTheSame(shown, next)) view.show(next);
 * ```
 */
export function drawsTheSame(a: RenderResult, b: RenderResult): boolean {
  if (a.parts.length !== b.parts.length) return false;
  for (const box of ["min", "max"] as const) {
    if (!a.bbox[box].every((v, k) => v === b.bbox[box][k])) return false;
  }
  return a.parts.every((p, i) => {
    const q = b.parts[i];
    return p.name === q.name && p.color === q.color && p.mesh.hash === q.mesh.hash &&
      p.instances.length === q.instances.length &&
      p.instances.every((m, j) =>
        m.length === q.instances[j].length && m.every((v, k) => v === q.instances[j][k])
      );
  });
}
