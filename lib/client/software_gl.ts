/**
 * Whether a WebGL context draws with a software rasterizer: SwiftShader (Chrome's fallback when the
 * GPU is blocklisted or absent, and every headless Chrome), Mesa's llvmpipe and softpipe, or
 * Windows' Basic Render Driver. There the environment map's prefiltering (three's
 * `PMREMGenerator`) holds the page's main thread for seconds — 3.7–4.4 s in Chromium's SwiftShader
 * at any map size (docs/performance.md) — against tens of milliseconds on a GPU, so the viewer
 * keeps its stand-in light instead (lib/client/scene_view.ts).
 *
 * Runs in browsers: no Deno APIs here.
 */

/** Names a software rasterizer puts in its renderer string (matched case-insensitively). */
const SOFTWARE_RENDERERS = [
  "swiftshader",
  "llvmpipe",
  "softpipe",
  "software rasterizer",
  "microsoft basic render driver",
] as const;

/**
 * Whether `renderer` (a WebGL renderer string, ideally `UNMASKED_RENDERER_WEBGL`) names a software
 * rasterizer.
 *
 * @example
 * ```ts
 * isSoftwareRenderer("ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero)), SwiftShader driver)"); // true
 * isSoftwareRenderer("ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0)"); // false
 * ```
 */
export function isSoftwareRenderer(renderer: string): boolean {
  const name = renderer.toLowerCase();
  return SOFTWARE_RENDERERS.some((software) => name.includes(software));
}

/**
 * The renderer string of `gl`: the unmasked one where the browser exposes it (Chrome, Edge, Safari
 * and Firefox do), else `RENDERER` (which some browsers reduce to a generic name: then nothing is
 * known and the caller treats the renderer as a GPU).
 */
export function rendererName(gl: WebGLRenderingContext | WebGL2RenderingContext): string {
  try {
    const info = gl.getExtension("WEBGL_debug_renderer_info");
    const unmasked = info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : null;
    if (typeof unmasked === "string" && unmasked !== "") return unmasked;
    const plain = gl.getParameter(gl.RENDERER);
    return typeof plain === "string" ? plain : "";
  } catch {
    return "";
  }
}
