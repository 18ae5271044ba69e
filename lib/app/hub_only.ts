/**
 * A middleware for folders that only the hub serves (`/settings`, `/auth`): on a kernel node
 * (`ROLE=kernel`, which holds no Deno KV) every path under them is 404 `not_found`, as a hub-only
 * route is there, before any middleware that would read the store.
 */
import { AppError } from "../http/problem.ts";
import type { AppMiddleware } from "./context.ts";

/** Answers 404 `not_found` on a process that does not serve the hub. */
export const hubOnly: AppMiddleware = async (ctx, next) => {
  if (!ctx.var.deps.hub) {
    throw new AppError("not_found", `Nothing is served at ${new URL(ctx.req.url).pathname}.`);
  }
  await next();
};
