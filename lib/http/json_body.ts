/**
 * Reads a JSON request body with a hard size cap, enforced while streaming (a lying or absent
 * Content-Length cannot get more than `maxBytes` buffered).
 */
import { AppError } from "./problem.ts";
import { decodeUtf8 } from "./utf8.ts";

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
  return parseJsonBytes(await readJsonBodyBytes(req, maxBytes));
}

/**
 * The raw bytes of a JSON request body, after the media-type and size checks; parse them later
 * with `parseJsonBytes` (the render path authenticates before it parses).
 */
export async function readJsonBodyBytes(
  req: Request,
  maxBytes = DEFAULT_MAX_JSON_BYTES,
): Promise<Uint8Array> {
  const type = req.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/json" && !type?.endsWith("+json")) {
    throw new AppError(
      "unsupported_media_type",
      `Send the body as application/json${type ? `, not ${type}` : " (Content-Type is missing)"}.`,
    );
  }
  const length = req.headers.get("content-length");
  const declared = length === null ? NaN : Number(length);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  // The server enforces a declared Content-Length, so a body within it can be read at once.
  // `req.body` is not touched then: the getter builds a ReadableStream that the read would go
  // through (several µs per request); a request with a Content-Length always has a body.
  if (Number.isSafeInteger(declared)) return new Uint8Array(await req.arrayBuffer());
  // Without one (chunked), stream and stop at the cap.
  if (!req.body) throw new AppError("invalid_body", "The request has no body.");
  return await readCapped(req.body, maxBytes);
}

/** Parses UTF-8 JSON bytes; `invalid_body` on bad UTF-8 or bad JSON. */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  const text = decodeUtf8(bytes);
  if (text === undefined) throw new AppError("invalid_body", "The body is not valid UTF-8.");
  return parseJsonText(text);
}

/** Parses a body's text (decoded by `decodeUtf8`); `invalid_body` on bad JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError("invalid_body", `The body is not valid JSON: ${(err as Error).message}`);
  }
}

async function readCapped(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError("body_too_large", `The body must be at most ${maxBytes} bytes.`, {
    extensions: { maxBytes },
  });
}
