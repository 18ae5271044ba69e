/**
 * Instance transforms as a render response carries them (docs/api.md, render): a part whose every
 * instance only moves it sends `translations` (x, y, z per instance), any other `matrices` (16
 * numbers per instance, column-major). Shared by the kernel's serializer and the client.
 */
import type { WirePart } from "./render_response.ts";

/** Whether a column-major 4×4 only translates. */
function isTranslation(t: readonly number[]): boolean {
  return t[0] === 1 && t[1] === 0 && t[2] === 0 && t[3] === 0 && t[4] === 0 && t[5] === 1 &&
    t[6] === 0 && t[7] === 0 && t[8] === 0 && t[9] === 0 && t[10] === 1 && t[11] === 0 &&
    t[15] === 1;
}

/**
 * The compact members for a part's 4×4 instance transforms.
 *
 * @example
 * ```ts
 * compactInstances([[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1]]); // { translations: [5, 0, 0] }
 * ```
 */
export function compactInstances(
  instances: readonly (readonly number[])[],
): Pick<WirePart, "translations" | "matrices"> {
  return instances.every(isTranslation)
    ? { translations: instances.flatMap((t) => [t[12], t[13], t[14]]) }
    : { matrices: instances.flat() };
}

/**
 * A part's instance transforms as column-major 4×4 matrices again; throws `TypeError` unless it
 * has exactly one of `translations` (a multiple of 3 finite numbers) and `matrices` (of 16).
 *
 * @example
 * ```ts
 * instanceMatrices({ translations: [5, 0, 0] }); // [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1]]
 * ```
 */
export function instanceMatrices(
  part: Pick<WirePart, "translations" | "matrices">,
): number[][] {
  const { translations, matrices } = part;
  const list = translations ?? matrices;
  const stride = translations ? 3 : 16;
  if ((translations === undefined) === (matrices === undefined) || !Array.isArray(list)) {
    throw new TypeError("a part needs exactly one of translations and matrices");
  }
  if (list.length % stride !== 0 || !list.every((v) => typeof v === "number" && isFinite(v))) {
    throw new TypeError(
      `${
        translations ? "translations" : "matrices"
      } must be finite numbers, ${stride} per instance`,
    );
  }
  const out: number[][] = [];
  for (let i = 0; i < list.length; i += stride) {
    out.push(
      translations
        ? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, list[i], list[i + 1], list[i + 2], 1]
        : list.slice(i, i + 16),
    );
  }
  return out;
}
