/**
 * What a viewer shows (lib/client/viewer_display.ts), for both viewers: a scene that came before
 * the view (three.js still loading) stays behind "Loading model…" and is not announced; a view that
 * could not start is an error; the render's own error wins over it.
 */
import assert from "node:assert/strict";
import { viewerDisplay, type ViewerInputs } from "@/lib/client/viewer_display.ts";
import type { RenderResult } from "@/lib/client/render_result.ts";

type E = { code: string; detail: string };
const result = { dagHash: "a", parts: [] } as unknown as RenderResult;
const viewError: E = { code: "view_unavailable", detail: "no WebGL" };
const renderError: E = { code: "network_error", detail: "offline" };
const base: ViewerInputs<E> = {
  loading: false,
  result: null,
  error: null,
  viewReady: false,
  viewError: null,
  updating: false,
};

Deno.test("viewer display - each state of the render and the view", () => {
  const table: Array<[string, Partial<ViewerInputs<E>>, ReturnType<typeof viewerDisplay<E>>]> = [
    ["first token or render on its way", { loading: true }, {
      state: "loading",
      error: null,
      overlay: { corner: false, loadingText: true },
      tools: false,
      announce: { loading: true, result: null, error: false },
    }],
    ["a scene, the view still loading", { result }, {
      state: "loading",
      error: null,
      overlay: { corner: false, loadingText: true },
      tools: false,
      announce: { loading: true, result: null, error: false },
    }],
    ["a scene on screen", { result, viewReady: true }, {
      state: "ready",
      error: null,
      overlay: null,
      tools: true,
      announce: { loading: false, result, error: false },
    }],
    ["an update under way, not long yet", { result, viewReady: true, loading: true }, {
      state: "loading",
      error: null,
      overlay: null,
      tools: true,
      announce: { loading: true, result, error: false },
    }],
    ["a long update", { result, viewReady: true, loading: true, updating: true }, {
      state: "loading",
      error: null,
      overlay: { corner: true, loadingText: false },
      tools: true,
      announce: { loading: true, result, error: false },
    }],
    ["the view could not start", { result, viewError }, {
      state: "error",
      error: viewError,
      overlay: null,
      tools: false,
      announce: { loading: false, result, error: true },
    }],
    ["the view could not start, first render on its way", { loading: true, viewError }, {
      state: "error",
      error: viewError,
      overlay: null,
      tools: false,
      announce: { loading: true, result: null, error: true },
    }],
    ["the render's error wins over the view's", { result, viewError, error: renderError }, {
      state: "error",
      error: renderError,
      overlay: null,
      tools: false,
      announce: { loading: false, result, error: true },
    }],
    ["an error before any scene", { error: renderError, viewReady: true }, {
      state: "error",
      error: renderError,
      overlay: null,
      tools: false,
      announce: { loading: false, result: null, error: true },
    }],
    ["nothing asked for yet", { viewReady: true }, {
      state: "empty",
      error: null,
      overlay: null,
      tools: false,
      announce: { loading: false, result: null, error: false },
    }],
  ];
  for (const [label, inputs, expected] of table) {
    assert.deepEqual(viewerDisplay({ ...base, ...inputs }), expected, label);
  }
});
