/**
 * The settings form of a key, as submitted: origins one per line, projects as checkboxes, TTLs in
 * minutes, an optional budget, the mint rate limits (per key, and per client IP in the browser
 * flow: mints per window of seconds) and the render quotas per UTC day and month (blank =
 * unlimited), and the export formats each flow may download (checkboxes per flow, docs/exports.md).
 * Turns it into the lifecycle's input (lib/hub/sdk_keys.ts validates).
 */
import { AppError } from "../http/problem.ts";
import type { CreateSdkKeyInput, SdkKeyView } from "./sdk_keys.ts";
import type { ExportFormat } from "../dag/export_format.ts";

/** The form's raw values (what a re-shown form is filled with). */
export interface SdkKeyFormValues {
  label: string;
  origins: string;
  projects: string[];
  defaultTtlMinutes: string;
  maxTtlMinutes: string;
  budget: string;
  /** Mints allowed per window (the key's rate limit); blank in both keeps the current policy. */
  ratePoints: string;
  /** The rate limit's window in seconds. */
  rateSeconds: string;
  /** Browser-flow mints per client IP per window; blank in both keeps the current policy. */
  ipPoints: string;
  /** The per-client-IP limit's window in seconds. */
  ipSeconds: string;
  /** Renders per UTC day; blank = unlimited. */
  quotaDay: string;
  /** Renders per UTC month; blank = unlimited. */
  quotaMonth: string;
  /**
   * The checked export formats per flow; undefined when the form had no export fieldset (a new
   * key then gets the defaults, an edited key keeps its formats).
   */
  exportFormats?: { browser: string[]; server: string[] };
}

/** The form values that show an existing key. */
export function formValuesOf(key: SdkKeyView): SdkKeyFormValues {
  return {
    label: key.label,
    origins: key.allowedOrigins.join("\n"),
    projects: key.allowedProjects,
    defaultTtlMinutes: String(key.defaultTtlSeconds / 60),
    maxTtlMinutes: String(key.maxTtlSeconds / 60),
    budget: key.budget === null ? "" : String(key.budget),
    ratePoints: String(key.rateLimit.points),
    rateSeconds: String(key.rateLimit.durationSeconds),
    ipPoints: String(key.clientIpRateLimit.points),
    ipSeconds: String(key.clientIpRateLimit.durationSeconds),
    quotaDay: key.renderQuota.day === null ? "" : String(key.renderQuota.day),
    quotaMonth: key.renderQuota.month === null ? "" : String(key.renderQuota.month),
    exportFormats: {
      browser: [...key.exportFormats.browser],
      server: [...key.exportFormats.server],
    },
  };
}

/**
 * The lifecycle input for submitted values; throws `validation_failed` on non-numbers. Both fields
 * of a rate limit blank (a form without them) leave that limit out: the default for a new key, the
 * current policy for an edit. A blank render quota is unlimited.
 */
export function keyInputFromForm(partnerId: string, v: SdkKeyFormValues): CreateSdkKeyInput {
  const rateGiven = v.ratePoints.trim() !== "" || v.rateSeconds.trim() !== "";
  const ipGiven = v.ipPoints.trim() !== "" || v.ipSeconds.trim() !== "";
  const quota = (name: string, text: string) => text.trim() === "" ? null : whole(name, text);
  return {
    partnerId,
    label: v.label,
    // One per line; blank lines are ignored, everything else is validated as typed.
    allowedOrigins: v.origins.split(/\r?\n/).filter((line) => line !== ""),
    allowedProjects: v.projects,
    defaultTtlSeconds: minutes("default TTL", v.defaultTtlMinutes),
    maxTtlSeconds: minutes("max TTL", v.maxTtlMinutes),
    budget: v.budget.trim() === "" ? null : whole("budget", v.budget),
    ...(rateGiven
      ? {
        rateLimit: {
          points: whole("mint rate limit", v.ratePoints),
          durationSeconds: whole("rate-limit window", v.rateSeconds),
        },
      }
      : {}),
    ...(ipGiven
      ? {
        clientIpRateLimit: {
          points: whole("per-client-IP mint limit", v.ipPoints),
          durationSeconds: whole("per-client-IP window", v.ipSeconds),
        },
      }
      : {}),
    renderQuota: {
      day: quota("render quota per day", v.quotaDay),
      month: quota("render quota per month", v.quotaMonth),
    },
    // Checked against the known formats by checkKeySettings (validation_failed otherwise).
    ...(v.exportFormats
      ? {
        exportFormats: {
          browser: v.exportFormats.browser as ExportFormat[],
          server: v.exportFormats.server as ExportFormat[],
        },
      }
      : {}),
  };
}

function minutes(name: string, text: string): number {
  return whole(name, text) * 60;
}

function whole(name: string, text: string): number {
  const t = text.trim();
  if (!/^\d{1,10}$/.test(t)) {
    throw new AppError(
      "validation_failed",
      `The ${name} must be a whole number, not "${t.slice(0, 20)}".`,
    );
  }
  return Number(t);
}
