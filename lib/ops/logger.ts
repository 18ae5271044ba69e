/**
 * Structured JSON logs, one object per line. Every string value passes through `redact`, so a
 * partner secret or a whole session token can never reach the log even if a caller slips one in.
 */

/** Severity of a log line. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A partner key's secret half or a whole `sv1.` token, wherever it appears in a string. */
const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/(sdk_[a-z0-9]+_)[A-Za-z0-9]+/g, "$1[redacted]"],
  [/\bsv1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, "sv1.[redacted]"],
  [/(Bearer\s+)\S+/gi, "$1[redacted]"],
];

const MAYBE_SECRET = /sdk_|sv1\.|bearer/i;

/** Removes secrets and tokens from a string. */
export function redact(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** Where log lines go; tests pass an array sink. */
export type LogSink = (line: string) => void;

/** A minimal structured logger with a level threshold and fixed base fields. */
export class Logger {
  readonly #level: LogLevel;
  readonly #sink: LogSink;
  readonly #base: Record<string, unknown>;

  /** Creates a logger writing lines at `level` or above to `sink` (stdout by default). */
  constructor(
    level: LogLevel = "info",
    sink: LogSink = (line) => console.log(line),
    base: Record<string, unknown> = {},
  ) {
    this.#level = level;
    this.#sink = sink;
    this.#base = base;
  }

  /** A logger that adds `fields` to every line. */
  child(fields: Record<string, unknown>): Logger {
    return new Logger(this.#level, this.#sink, { ...this.#base, ...fields });
  }

  /** Logs at debug level. */
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.#write("debug", msg, fields);
  }
  /** Logs at info level. */
  info(msg: string, fields?: Record<string, unknown>): void {
    this.#write("info", msg, fields);
  }
  /** Logs at warn level. */
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.#write("warn", msg, fields);
  }
  /** Logs at error level. */
  error(msg: string, fields?: Record<string, unknown>): void {
    this.#write("error", msg, fields);
  }

  #write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    if (LEVELS[level] < LEVELS[this.#level]) return;
    const line = JSON.stringify(
      { ts: new Date().toISOString(), level, msg, ...this.#base, ...fields },
      (_key, value) => {
        if (typeof value === "string") return redact(value);
        if (value instanceof Error) return { name: value.name, message: redact(value.message) };
        return value;
      },
    );
    this.#sink(line);
  }
}
