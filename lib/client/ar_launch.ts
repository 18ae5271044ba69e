/**
 * "View in AR" (docs/embedding.md): hands the current configuration to the device's AR viewer.
 *
 * - **Quick Look** (iOS): the USDZ is made here from the meshes on screen (`usdz_export.ts`,
 *   imported on the first tap only, so neither it nor three's exporter weighs on the first load),
 *   put in a `blob:` URL and opened through an `<a rel="ar">` holding an `<img>` (Apple's
 *   documented markup), with `#allowsContentScaling=0` so the part stays at true size. The URL is
 *   revoked after `AR_BLOB_LIFETIME_MS` (Quick Look has read it by then).
 * - **Scene Viewer** (Android): Google's viewer fetches the model itself, without the page's
 *   token or Origin, so it gets a short-lived capability URL of this configuration's GLB (the
 *   caller's `glbUrl()`, a kernel AR ticket) inside an `intent://` URL; without the Google app
 *   the browser opens `fallbackUrl` (this page) again.
 *
 * Runs in browsers: no Deno APIs here.
 */
import type { ArMode } from "./ar_support.ts";
import type { UsdzInput } from "./usdz_export.ts";

/** How long a Quick Look `blob:` URL lives (ms). */
export const AR_BLOB_LIFETIME_MS = 5 * 60 * 1000;

/** Why AR could not be opened (stable `code`). */
export type ArErrorCode = "ar_unavailable" | "no_scene" | "ar_model_unavailable";

/** "View in AR" could not open. */
export class ArError extends Error {
  /** Stable code: `ar_unavailable`, `no_scene` or `ar_model_unavailable`. */
  readonly code: ArErrorCode;
  /** Makes an error with `code` and a message for the shopper or the partner. */
  constructor(code: ArErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ArError";
    this.code = code;
  }
}

/** What a launch opened. */
export interface ArLaunch {
  mode: ArMode;
  /** Quick Look: the `blob:` URL of the USDZ (with its fragment); Scene Viewer: the intent URL. */
  url: string;
  /** Quick Look: the USDZ's size in bytes. */
  bytes?: number;
}

/** What `viewInAr` needs. */
export interface ArLaunchOptions {
  /** The device's mode (`detectArSupport`); null refuses with `ar_unavailable`. */
  mode: ArMode | null;
  /** The scene on screen (its parts and bounding box), once settled. */
  scene: () => Promise<UsdzInput>;
  /** Scene Viewer: an https URL of this configuration's GLB that needs no token. */
  glbUrl?: () => Promise<string>;
  /** The model's name in the viewers (the project's title). */
  title?: string;
  /** Where the anchor goes for its click (the configurator's root; default `document.body`). */
  container?: Node;
  /** Scene Viewer: where the browser goes without the Google app (default this page). */
  fallbackUrl?: string;
  /** Opens a URL (default `location.assign`; tests watch it). */
  open?: (url: string) => void;
}

/**
 * The intent URL that opens `glbUrl` in Scene Viewer in AR (3D where AR is missing), at true
 * size (`resizable=false`), with `fallbackUrl` for browsers without the Google app.
 *
 * @example
 * ```ts
 * location.assign(sceneViewerIntentUrl("https://k.example/v1/kernels/manifold/ar/T.glb", { fallbackUrl: location.href }));
 * ```
 */
export function sceneViewerIntentUrl(
  glbUrl: string,
  options: { title?: string; fallbackUrl: string },
): string {
  const params = new URLSearchParams({ file: glbUrl, mode: "ar_preferred", resizable: "false" });
  if (options.title) params.set("title", options.title);
  return `intent://arvr.google.com/scene-viewer/1.0?${params}#Intent;scheme=https;` +
    "package=com.google.android.googlequicksearchbox;action=android.intent.action.VIEW;" +
    `S.browser_fallback_url=${encodeURIComponent(options.fallbackUrl)};end;`;
}

/**
 * Opens the current configuration in the device's AR viewer. Rejects with `ArError`.
 *
 * @example
 * ```ts
 * const { mode } = await detectArSupport();
 * button.onclick = () => viewInAr({ mode, scene: async () => await settledResult(renderer.state) });
 * ```
 */
export async function viewInAr(options: ArLaunchOptions): Promise<ArLaunch> {
  const open = options.open ?? ((url: string) => globalThis.location.assign(url));
  if (options.mode === "scene-viewer") {
    if (!options.glbUrl) {
      throw new ArError("ar_unavailable", "this configurator has no AR model URL for Android");
    }
    await options.scene().catch((err) => {
      throw new ArError("no_scene", "there is no rendered model to show in AR yet", { cause: err });
    });
    let glb: string;
    try {
      glb = await options.glbUrl();
    } catch (err) {
      throw new ArError(
        "ar_model_unavailable",
        `the AR model could not be prepared (${err instanceof Error ? err.message : err})`,
        { cause: err },
      );
    }
    const url = sceneViewerIntentUrl(glb, {
      title: options.title,
      fallbackUrl: options.fallbackUrl ?? globalThis.location.href,
    });
    open(url);
    return { mode: "scene-viewer", url };
  }
  if (options.mode !== "quick-look") {
    throw new ArError("ar_unavailable", "this device has no AR viewer the configurator can open");
  }
  let scene: UsdzInput;
  try {
    scene = await options.scene();
  } catch (err) {
    throw new ArError("no_scene", "there is no rendered model to show in AR yet", { cause: err });
  }
  if (!scene.parts.some((p) => p.mesh.indices.length > 0 && p.instances.length > 0)) {
    throw new ArError("no_scene", "the model has nothing to show in AR");
  }
  const { buildUsdz, USDZ_CONTENT_TYPE } = await import("./usdz_export.ts");
  const bytes = await buildUsdz(scene);
  const blobUrl = URL.createObjectURL(new Blob([bytes], { type: USDZ_CONTENT_TYPE }));
  setTimeout(() => URL.revokeObjectURL(blobUrl), AR_BLOB_LIFETIME_MS);
  const url = `${blobUrl}#allowsContentScaling=0`;
  // Apple's markup: an anchor with rel="ar" whose first child is an image; `download` names the
  // file, which a blob: URL lacks.
  const anchor = document.createElement("a");
  anchor.rel = "ar";
  anchor.href = url;
  anchor.download = `${fileStem(options.title)}.usdz`;
  anchor.hidden = true;
  anchor.appendChild(document.createElement("img"));
  const container = options.container ?? document.body;
  container.appendChild(anchor);
  try {
    anchor.click();
  } finally {
    anchor.remove();
  }
  return { mode: "quick-look", url, bytes: bytes.length };
}

/** A file name from a title: letters, digits and dashes (default `model`). */
function fileStem(title: string | undefined): string {
  const stem = (title ?? "").normalize("NFKD").replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "").toLowerCase();
  return stem || "model";
}
