/**
 * Which "View in AR" a device offers (docs/embedding.md, "View in AR"), decided from what the
 * browser says about itself, so the button is shown only where a tap leads somewhere:
 *
 * - **`quick-look`** (iOS, iPadOS): Safari's anchors support `rel="ar"`
 *   (`a.relList.supports("ar")`), the signal Apple documents for AR Quick Look. Other iOS
 *   browsers are WebKit views whose `relList` says no though Quick Look opens from them; as
 *   model-viewer does, Chrome, Edge, Firefox, the Google app and DuckDuckGo on iOS count by their
 *   user-agent tokens (`CriOS`, `EdgiOS`, `FxiOS`, `GSA`, `DuckDuckGo`).
 * - **`scene-viewer`** (Android): a Chromium-based browser (`Chrome/` in the user agent: Chrome,
 *   Samsung Internet, Edge) that can fire an `intent://` URL into Google's Scene Viewer. Not an
 *   Android WebView (`; wv)`: an app's web view does not follow intents), not Firefox (no
 *   `Chrome/`), not a headset's browser (`OculusBrowser`, `Quest`), which have no Scene Viewer.
 * - otherwise **none**: desktops, and phones whose browser can do neither. (WebXR's
 *   `immersive-ar` is reported by `detectArSupport` but not used: the two native viewers cover the
 *   phones that have it, with better placement and lighting than an in-page session.)
 *
 * Runs in browsers: no Deno APIs here.
 */

/** A way to show the model in AR. */
export type ArMode = "quick-look" | "scene-viewer";

/** What the detection reads of a browser (all of it from the page, nothing asked of the user). */
export interface ArEnvironment {
  /** `navigator.userAgent`. */
  userAgent: string;
  /** Whether `document.createElement("a").relList.supports("ar")`. */
  anchorSupportsAr: boolean;
}

/** What a browser offers. */
export interface ArSupport {
  /** The mode a tap uses, or null where the button stays hidden. */
  mode: ArMode | null;
  /** Whether WebXR reports `immersive-ar` sessions (informational; not used to show the button). */
  webxr: boolean;
}

const IOS = /\b(?:iPhone|iPad|iPod)\b/;
/** iOS browsers whose WebKit view opens Quick Look though `relList` does not say so. */
const IOS_QUICK_LOOK_APPS = /\b(?:CriOS|EdgiOS|FxiOS|GSA|DuckDuckGo)\//;
const ANDROID = /\bAndroid\b/i;
const CHROMIUM = /\bChrome\/\d/;
const NO_SCENE_VIEWER = /; wv\)|\bOculusBrowser\/|\bQuest\b|\bFirefox\//;

/**
 * The AR mode of an environment (pure: the tests hand in user agents).
 *
 * @example
 * ```ts
 * arModeOf({ userAgent: navigator.userAgent, anchorSupportsAr: false }); // "scene-viewer" on Android Chrome
 * ```
 */
export function arModeOf(env: ArEnvironment): ArMode | null {
  if (env.anchorSupportsAr) return "quick-look";
  const ua = env.userAgent;
  if (IOS.test(ua) && IOS_QUICK_LOOK_APPS.test(ua)) return "quick-look";
  if (ANDROID.test(ua) && CHROMIUM.test(ua) && !NO_SCENE_VIEWER.test(ua)) return "scene-viewer";
  return null;
}

/** Reads this browser's environment (`anchorSupportsAr` false where `relList` is missing). */
export function browserArEnvironment(): ArEnvironment {
  let anchorSupportsAr = false;
  try {
    const relList = document.createElement("a").relList;
    anchorSupportsAr = !!relList && typeof relList.supports === "function" &&
      relList.supports("ar");
  } catch {
    // an engine whose DOMTokenList.supports throws for unknown tokens: no Quick Look
  }
  return { userAgent: globalThis.navigator?.userAgent ?? "", anchorSupportsAr };
}

/**
 * This browser's AR mode, read at once (null outside a browser): all a configurator needs to show
 * or hide its button, without the WebXR query of `detectArSupport` on its start-up path.
 *
 * @example
 * ```ts
 * button.hidden = browserArMode() === null;
 * ```
 */
export function browserArMode(): ArMode | null {
  if (typeof document === "undefined") return null;
  return arModeOf(browserArEnvironment());
}

/**
 * What this browser offers; false/null outside a browser (server rendering).
 *
 * @example
 * ```ts
 * const { mode } = await detectArSupport();
 * button.hidden = mode === null;
 * ```
 */
export async function detectArSupport(): Promise<ArSupport> {
  if (typeof document === "undefined") return { mode: null, webxr: false };
  const mode = browserArMode();
  let webxr = false;
  const xr = (globalThis.navigator as Navigator & {
    xr?: { isSessionSupported(mode: string): Promise<boolean> };
  }).xr;
  try {
    webxr = !!xr && await xr.isSessionSupported("immersive-ar");
  } catch {
    // a permissions policy that forbids xr-spatial-tracking: no WebXR
  }
  return { mode, webxr };
}
