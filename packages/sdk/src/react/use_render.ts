/**
 * `useRender()` for React: the render state (idle / rendering / ready / error), the last good
 * result, the budget left, the loaded project, and `render(values)`.
 */
import { useCallback } from "react";
import type { LoadedProject } from "../../../../lib/client/project_loader.ts";
import type { RenderError } from "../../../../lib/client/problem.ts";
import type {
  BudgetRemaining,
  RenderOptions,
  RenderState,
} from "../../../../lib/client/render_client.ts";
import type { RenderResult } from "../../../../lib/client/render_result.ts";
import { useConfigurator } from "./context.ts";
import { useSignalValue } from "./use_signal_value.ts";

/** What `useRender` gives. */
export interface UseRender {
  status: RenderState["status"];
  result: RenderResult | null;
  error: RenderError | null;
  budgetRemaining: BudgetRemaining;
  /** Renders `values`; errors also land in `error` (the promise never rejects). */
  render: (
    values: Record<string, unknown>,
    options?: RenderOptions,
  ) => Promise<RenderResult | null>;
  /** The loaded project (null until loaded). */
  project: LoadedProject | null;
  projectError: RenderError | null;
}

const IDLE: RenderState = { status: "idle", result: null, budgetRemaining: undefined };

/** The provider's render state and `render`. */
export function useRender(): UseRender {
  const clients = useConfigurator();
  const state = useSignalValue(clients?.renderer.state, IDLE);
  const project = useSignalValue(clients?.project, null);
  const projectError = useSignalValue(clients?.projectError, null);
  const renderer = clients?.renderer;
  const render = useCallback(
    (values: Record<string, unknown>, options?: RenderOptions) =>
      renderer ? renderer.render(values, options).catch(() => null) : Promise.resolve(null),
    [renderer],
  );
  return {
    status: state.status,
    result: state.result,
    error: state.status === "error" ? state.error : null,
    budgetRemaining: state.budgetRemaining,
    render,
    project,
    projectError,
  };
}
