/** The request-body limit of the settings area (project uploads are the largest bodies). */
import { bodyLimit } from "hono/body-limit";
import type { MiddlewareHandler } from "hono";
import { AppError } from "../http/problem.ts";
import type { AppEnv } from "./context.ts";

/** Largest settings request body: two project documents of up to 3.5 MB together, plus form. */
export const SETTINGS_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Refuses bodies over `SETTINGS_MAX_BODY_BYTES` with `body_too_large`. */
export const settingsBodyLimit: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: SETTINGS_MAX_BODY_BYTES,
  onError: () => {
    throw new AppError("body_too_large", "A settings request body is at most 4 MiB.", {
      extensions: { maxBytes: SETTINGS_MAX_BODY_BYTES },
    });
  },
});
