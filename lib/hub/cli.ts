/**
 * The operator CLI (`deno task hub …`): one JSON object on stdout per success; a message on stderr
 * and a non-zero exit on bad input. It uses the same KV_PATH as the server.
 */
import { parseArgs } from "node:util";
import { AppError } from "../http/problem.ts";
import { createPartner, listPartners } from "../store/partners.ts";
import { createProject } from "../store/projects.ts";
import { SigningKeyStore } from "../token/signing_keys.ts";
import { CLOCK_LEEWAY_S, MAX_TOKEN_LIFETIME_S } from "../token/claims.ts";
import { readProjectDir } from "./project_dir.ts";
import { publishProject } from "./publish.ts";
import { createSdkKey, listSdkKeys, revokeSdkKey, setRenderQuota, viewSdkKey } from "./sdk_keys.ts";
import type { RenderQuota, SdkKeyRecord } from "../store/sdk_keys.ts";
import { revokeToken } from "./token_revocation.ts";

/** Each command's synopsis and what it does (`--help` prints them; the usage lists them all). */
export const COMMANDS: Readonly<Record<string, { synopsis: string; help: string }>> = {
  "partner create": {
    synopsis: "partner create --name <name>",
    help: "Creates a partner (a company that embeds the configurator); prints its partnerId.",
  },
  "partner list": {
    synopsis: "partner list",
    help: "Lists every partner: partnerId, name, created (the demo partner is among them).",
  },
  "project create": {
    synopsis: "project create --partner <id> --slug <slug> --title <title>",
    help: "Creates an empty project of a partner; publish a version with `project publish`.",
  },
  "project publish": {
    synopsis: "project publish --slug <slug> --dir <dir> [--partner <id>]",
    help: "Publishes a new version from <dir>: parameters.schema.json + template.dag.json\n" +
      "(template mode) or parameters.schema.json + design.py (python mode). Slugs are per\n" +
      "partner: --partner is needed when several partners have a project <slug>.",
  },
  "key create": {
    synopsis:
      "key create --partner <id> --label <label> --origin <origin>... --project <slug>...\n" +
      "           [--budget <n>] [--default-ttl <s>] [--max-ttl <s>] [--rate-limit <n>/<s>]\n" +
      "           [--ip-rate-limit <n>/<s>] [--quota-day <n>] [--quota-month <n>]",
    help: "Creates a partner key; prints the full key (sdk_<keyId>_<secret>) once. Repeat\n" +
      "--origin and --project for several (origins exactly as browsers send them:\n" +
      "scheme://host[:port]). Defaults: rate limit 600/60, per-IP 60/60, no budget or quota.",
  },
  "key quota": {
    synopsis: "key quota --key-id <keyId> [--quota-day <n>|none] [--quota-month <n>|none]",
    help: "Changes a key's daily and/or monthly render quota (none = unlimited).",
  },
  "key revoke": {
    synopsis: "key revoke --key-id <keyId>",
    help: "Revokes a key: no new tokens, and its live tokens stop rendering within seconds.",
  },
  "key list": {
    synopsis: "key list --partner <id>",
    help: "Lists a partner's keys (never their secrets).",
  },
  "token revoke": {
    synopsis: "token revoke --jti <jti> [--exp <unix seconds>]",
    help: "Revokes one session token by its jti (until its exp, or the longest token life).",
  },
  "signing-key rotate": {
    synopsis: "signing-key rotate",
    help: "Makes a new Ed25519 signing key current; the old one stays published in the JWKS.",
  },
};

/** The usage text printed for `--help` and unknown commands. */
export const USAGE =
  "Usage: deno task hub <command> [options]   (<command> --help for details)\n\n" +
  Object.values(COMMANDS).map((c) => "  " + c.synopsis).join("\n") + "\n";

/** One command's help text. */
export function commandHelp(command: string): string {
  const c = COMMANDS[command];
  return `Usage: deno task hub ${c.synopsis}\n\n${c.help}\n`;
}

/** Asked for help: printed on stdout, exit code 0. */
export class CliHelp extends Error {}

/** A usage or input error: exit code 2 with its message. */
export class CliError extends Error {}

type Options = Record<string, string | string[] | boolean | undefined>;

function one(opts: Options, name: string): string {
  const v = opts[name];
  if (typeof v !== "string" || v === "") throw new CliError(`--${name} is required`);
  return v;
}

function many(opts: Options, name: string): string[] {
  const v = opts[name];
  if (!Array.isArray(v) || v.length === 0) {
    throw new CliError(`--${name} is required (repeat it for several)`);
  }
  return v;
}

function int(opts: Options, name: string): number | undefined {
  const v = opts[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !/^\d+$/.test(v)) {
    throw new CliError(`--${name} must be a non-negative integer`);
  }
  return Number(v);
}

/** What the CLI needs beyond the KV handle (all optional). */
export interface CliOptions {
  /** The clock, in milliseconds (tests pass a fixed one). */
  clock?: () => number;
}

/**
 * Runs one CLI command against `kv` and returns the JSON result.
 *
 * @example
 * ```ts
 * await runCli(kv, ["partner", "create", "--name", "Acme"]); // { partnerId: "prt_…" }
 * ```
 */
export async function runCli(
  kv: Deno.Kv,
  argv: string[],
  options: CliOptions = {},
): Promise<unknown> {
  const clock = options.clock ?? Date.now;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: "string" },
      partner: { type: "string" },
      slug: { type: "string" },
      title: { type: "string" },
      label: { type: "string" },
      origin: { type: "string", multiple: true },
      project: { type: "string", multiple: true },
      budget: { type: "string" },
      "default-ttl": { type: "string" },
      "max-ttl": { type: "string" },
      "rate-limit": { type: "string" },
      "ip-rate-limit": { type: "string" },
      "quota-day": { type: "string" },
      "quota-month": { type: "string" },
      "key-id": { type: "string" },
      dir: { type: "string" },
      jti: { type: "string" },
      exp: { type: "string" },
      help: { type: "boolean" },
    },
  });
  const opts = values as Options;
  const command = positionals.join(" ");
  if (opts.help || command === "help") {
    throw new CliHelp(Object.hasOwn(COMMANDS, command) ? commandHelp(command) : USAGE);
  }
  switch (command) {
    case "partner create": {
      const partner = await createPartner(kv, one(opts, "name"), clock());
      return { partnerId: partner.id };
    }
    case "partner list": {
      const partners = await listPartners(kv);
      return {
        partners: partners.map((p) => ({ partnerId: p.id, name: p.name, createdAt: p.createdAt })),
      };
    }
    case "project create": {
      const project = await createProject(kv, {
        partnerId: one(opts, "partner"),
        slug: one(opts, "slug"),
        title: one(opts, "title"),
      }, clock());
      return { slug: project.slug };
    }
    case "key create": {
      const rateLimit = policy(opts, "rate-limit", "600/60");
      const { key, record } = await createSdkKey(kv, {
        partnerId: one(opts, "partner"),
        label: one(opts, "label"),
        allowedOrigins: many(opts, "origin"),
        allowedProjects: many(opts, "project"),
        budget: int(opts, "budget") ?? null,
        defaultTtlSeconds: int(opts, "default-ttl"),
        maxTtlSeconds: int(opts, "max-ttl"),
        rateLimit,
        clientIpRateLimit: policy(opts, "ip-rate-limit", "60/60"),
        renderQuota: {
          day: int(opts, "quota-day") ?? null,
          month: int(opts, "quota-month") ?? null,
        },
      }, clock());
      return { keyId: record.keyId, key, ...omitKeyId(viewSdkKey(record)) };
    }
    case "key quota": {
      // Changes only the named periods; `none` removes a quota (unlimited).
      const keyId = one(opts, "key-id");
      const record = await updateRenderQuota(kv, keyId, opts, clock());
      return { keyId, renderQuota: viewSdkKey(record).renderQuota };
    }
    case "key revoke": {
      // Deno KV alone: every render node reads the revocation log from it (no Redis needed).
      const keyId = one(opts, "key-id");
      const record = await revokeSdkKey(kv, keyId, { now: clock() });
      if (!record) throw new CliError(`no key has the keyId "${keyId}"`);
      return { keyId, revoked: true };
    }
    case "key list":
      return { keys: await listSdkKeys(kv, one(opts, "partner")) };
    case "project publish": {
      const slug = one(opts, "slug");
      const dir = one(opts, "dir");
      // template.dag.json + parameters.schema.json, or design.py + parameters.schema.json.
      const meta = await publishProject(kv, slug, await readProjectDir(dir), {
        partnerId: typeof opts.partner === "string" && opts.partner ? opts.partner : undefined,
        now: clock(),
      });
      return { slug, version: meta.version };
    }
    case "token revoke": {
      const jti = one(opts, "jti");
      if (!/^[0-9a-f]{32}$/.test(jti)) {
        throw new CliError("--jti must be a token's jti (32 hex characters)");
      }
      // Without the token's exp, enforce it as long as any token issued by now can be accepted
      // (iat may be up to the leeway ahead of this clock).
      const now = clock();
      const exp = int(opts, "exp") ??
        Math.floor(now / 1000) + MAX_TOKEN_LIFETIME_S + CLOCK_LEEWAY_S;
      await revokeToken(kv, jti, exp, { now });
      return { jti, revoked: true };
    }
    case "signing-key rotate": {
      const record = await new SigningKeyStore(kv, clock).rotate();
      return { kid: record.kid };
    }
    default:
      throw new CliError(command ? `unknown command "${command}"\n\n${USAGE}` : USAGE);
  }
}

/** A `<points>/<seconds>` rate-limit option, or undefined when absent. */
function policy(
  opts: Options,
  name: string,
  example: string,
): { points: number; durationSeconds: number } | undefined {
  if (opts[name] === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(String(opts[name]));
  if (!m) throw new CliError(`--${name} must look like <points>/<seconds>, e.g. ${example}`);
  return { points: Number(m[1]), durationSeconds: Number(m[2]) };
}

/** Applies `--quota-day` / `--quota-month` (a number, or `none` for unlimited) to a key. */
async function updateRenderQuota(
  kv: Deno.Kv,
  keyId: string,
  opts: Options,
  now: number,
): Promise<SdkKeyRecord> {
  const change: Partial<RenderQuota> = {};
  for (const [name, period] of [["quota-day", "day"], ["quota-month", "month"]] as const) {
    if (opts[name] !== undefined) change[period] = opts[name] === "none" ? null : int(opts, name)!;
  }
  if (Object.keys(change).length === 0) {
    throw new CliError("give --quota-day and/or --quota-month (a number, or none for unlimited)");
  }
  const record = await setRenderQuota(kv, keyId, change, now);
  if (!record) throw new CliError(`no key has the keyId "${keyId}"`);
  return record;
}

function omitKeyId<T extends { keyId: string }>(view: T): Omit<T, "keyId"> {
  const { keyId: _, ...rest } = view;
  return rest;
}

/** Turns a CLI failure into the message to print (never a stack trace for expected errors). */
export function cliErrorMessage(err: unknown): string {
  if (err instanceof CliError || err instanceof CliHelp) return err.message;
  if (err instanceof AppError) {
    const pointer = typeof err.extensions.pointer === "string"
      ? ` (at ${err.extensions.pointer || "/"})`
      : "";
    return `${err.code}: ${err.message}${pointer}`;
  }
  if (err instanceof TypeError && "code" in err && String(err.code).startsWith("ERR_PARSE_ARGS")) {
    return `${err.message}\n\n${USAGE}`;
  }
  return `unexpected error: ${(err as Error)?.message ?? String(err)}`;
}
