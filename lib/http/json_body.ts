/**
 * Reads a JSON request body with a hard size cap, enforced while streaming (a lying or absent
 * Content-Length cannot get more than `maxBytes` buffered).
 */
import { AppError } from "./problem.ts";

/** Default cap for small API bodies. */
export const DEFAULT_MAX_JSON_BYTES = 16 * 1024;

/**
 * The parsed JSON body of `req`; `unsupported_media_type`, `body_too_large` or `invalid_body`
 * problems otherwise.
 *
 * @example
 * ```ts
 * const body = await readJsonBody(req, 16 * 1024);
 * ```
 */
export async function readJsonBody(
  req: Request,
  maxBytes = DEFAULT_MAX_JSON_BYTES,
): Promise<unknown> {
  const type = req.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/json" && !type?.endsWith("+json")) {
    throw new AppError(
      "unsupported_media_type",
      `Send the body as application/json${type ? `, not ${type}` : " (Content-Type is missing)"}.`,
    );
  }
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!req.body) throw new AppError("invalid_body", "The request has no body.");
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("invalid_body", "The body is not valid UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError("invalid_body", `The body is not valid JSON: ${(err as Error).message}`);
  }
}

function tooLarge(maxBytes: number): AppError {
  return new AppError("body_too_large", `The body must be at most ${maxBytes} bytes.`, {
    extensions: { maxBytes },
  });
}
