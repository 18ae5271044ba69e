/**
 * The export formats (docs/exports.md): what a token holder or a partner's backend may download
 * of a configuration besides the render's scene. One table, read by the kernel (which file to
 * build, what it costs), the hub (per-key settings, the order hand-off) and the docs' tests.
 */

/** Every export format, in the order the docs and the settings list them. */
export const EXPORT_FORMATS = ["glb", "stl", "3mf"] as const;

/** One export format. */
export type ExportFormat = typeof EXPORT_FORMATS[number];

/**
 * Budget units one export costs, whatever its format: it is one evaluation of the configuration,
 * as a render is (docs/exports.md, Cost).
 */
export const EXPORT_UNITS = 1;

/** What each format is: its media type, file extension and label in the settings. */
export const EXPORT_FORMAT_INFO: Readonly<
  Record<ExportFormat, { contentType: string; extension: string; label: string }>
> = {
  glb: { contentType: "model/gltf-binary", extension: "glb", label: "GLB (glTF 2.0)" },
  stl: { contentType: "model/stl", extension: "stl", label: "STL (binary)" },
  "3mf": { contentType: "model/3mf", extension: "3mf", label: "3MF (core)" },
};

/** True when `value` names an export format. */
export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === "string" && (EXPORT_FORMATS as readonly string[]).includes(value);
}

/**
 * Which formats a key lets each flow export (docs/exports.md, Per-key formats): `browser` is a
 * session-token holder (a shopper's browser, whichever flow minted the token); `server` is the
 * partner's backend with the key's secret (the order hand-off).
 */
export interface KeyExportFormats {
  browser: ExportFormat[];
  server: ExportFormat[];
}

/** A key's formats when it never set them: GLB for shoppers (AR), every format for the backend. */
export const DEFAULT_EXPORT_FORMATS: Readonly<KeyExportFormats> = Object.freeze({
  browser: ["glb" as ExportFormat],
  server: [...EXPORT_FORMATS],
});

/**
 * A key record's export formats, the defaults where it has none (records made before the setting
 * existed read as the defaults: no migration).
 */
export function exportFormatsOf(
  record: { exportFormats?: Partial<KeyExportFormats> } | null | undefined,
): KeyExportFormats {
  const set = record?.exportFormats;
  return {
    browser: [...(set?.browser ?? DEFAULT_EXPORT_FORMATS.browser)],
    server: [...(set?.server ?? DEFAULT_EXPORT_FORMATS.server)],
  };
}
