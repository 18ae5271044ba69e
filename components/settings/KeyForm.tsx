/** The create/edit form of an SDK key (works without JavaScript). */
import type { SdkKeyFormValues } from "@/lib/hub/sdk_key_form.ts";
import { DEFAULT_RATE_LIMIT, RATE_LIMIT_BOUNDS } from "@/lib/hub/rate_limit.ts";
import { DEFAULT_CLIENT_IP_RATE_LIMIT } from "@/lib/hub/client_ip_limit.ts";
import { RENDER_QUOTA_MAX } from "@/lib/render/render_quota.ts";
import { EXPORT_FORMAT_INFO, EXPORT_FORMATS } from "@/lib/dag/export_format.ts";
import { CsrfField, ErrorBox, fieldError } from "./Shell.tsx";

/** Props of the key form. */
export interface KeyFormProps {
  action: string;
  csrf: string;
  values: SdkKeyFormValues;
  projects: Array<{ slug: string; title: string }>;
  submit: string;
  error?: string;
  /** The refusal's problem code: which field the error is about (`invalid_origin`: origins). */
  errorCode?: string;
}

/** The key form. */
export function KeyForm(p: KeyFormProps) {
  const about = (...codes: string[]) => fieldError(!!p.error && codes.includes(p.errorCode ?? ""));
  return (
    <form method="post" action={p.action} class="stack">
      <CsrfField token={p.csrf} />
      <ErrorBox error={p.error} />
      <label>
        Label
        <span class="hint">For you: where the key is used.</span>
        <input type="text" name="label" required maxLength={200} value={p.values.label} />
      </label>
      <label>
        Allowed origins
        <span class="hint">
          One per line, exactly as the browser sends it: scheme, host and port, no path or trailing
          slash (e.g. https://shop.example.com, http://localhost:5173).
        </span>
        <textarea name="origins" rows={4} required {...about("invalid_origin")}>
          {p.values.origins}
        </textarea>
      </label>
      <fieldset class="field" {...about("unknown_project")}>
        <legend>Allowed projects</legend>
        {p.projects.length === 0
          ? (
            <span class="hint">
              No projects yet — <a href="/settings/projects">create one</a> first.
            </span>
          )
          : (
            <div class="checks">
              {p.projects.map((pr) => (
                <label>
                  <input
                    type="checkbox"
                    name="projects"
                    value={pr.slug}
                    checked={p.values.projects.includes(pr.slug)}
                  />
                  {pr.title} <code>{pr.slug}</code>
                </label>
              ))}
            </div>
          )}
      </fieldset>
      <div class="row">
        <label>
          Default TTL (minutes)
          <input
            type="number"
            name="defaultTtl"
            min={1}
            required
            value={p.values.defaultTtlMinutes}
          />
        </label>
        <label>
          Max TTL (minutes)
          <input
            type="number"
            name="maxTtl"
            min={1}
            max={720}
            required
            value={p.values.maxTtlMinutes}
          />
        </label>
        <label>
          Renders per token
          <input
            type="number"
            name="budget"
            min={0}
            placeholder="unlimited"
            value={p.values.budget}
          />
        </label>
      </div>
      <div class="field">
        Mint rate limit
        <span class="hint">
          Session tokens this key may mint per window, all origins together; more get 429 with
          Retry-After (default {DEFAULT_RATE_LIMIT.points} per {DEFAULT_RATE_LIMIT.durationSeconds}
          {" "}
          s).
        </span>
        <RateLimitInputs
          label="Mints per window"
          points="ratePoints"
          seconds="rateSeconds"
          values={p.values}
        />
      </div>
      <div class="field">
        Mint limit per visitor address
        <span class="hint">
          Browser-flow mints per client IP address (an IPv6 /56 counts as one) per window, for this
          key; a client over it gets 429 without spending the key's limit (default{" "}
          {DEFAULT_CLIENT_IP_RATE_LIMIT.points} per {DEFAULT_CLIENT_IP_RATE_LIMIT.durationSeconds}
          {" "}
          s). Server-flow mints are not limited per address.
        </span>
        <RateLimitInputs
          label="Mints per address"
          points="ipPoints"
          seconds="ipSeconds"
          values={p.values}
        />
      </div>
      <div class="field">
        Render quota
        <span class="hint">
          Renders of all this key's tokens together per UTC day and per UTC month; past either,
          renders get 429 quota_exceeded until the next day or month. Blank = unlimited; 0 stops
          rendering.
        </span>
        <div class="row">
          <label>
            Renders per day
            <input
              type="number"
              name="quotaDay"
              min={0}
              max={RENDER_QUOTA_MAX}
              placeholder="unlimited"
              value={p.values.quotaDay}
            />
          </label>
          <label>
            Renders per month
            <input
              type="number"
              name="quotaMonth"
              min={0}
              max={RENDER_QUOTA_MAX}
              placeholder="unlimited"
              value={p.values.quotaMonth}
            />
          </label>
        </div>
      </div>
      <fieldset class="field">
        <legend>Export formats</legend>
        <span class="hint">
          Which files of a configuration each side may download (docs/exports.md). Shoppers use a
          session token in their browser: GLB is what “View in AR” needs; STL and 3MF there let
          anyone holding a token take the production file. Your backend uses the key's secret for
          the order hand-off. Each download costs one render of the token's budget.
        </span>
        <input type="hidden" name="exportFormats" value="1" />
        {([["exportBrowser", "browser", "Shoppers (session token)"], [
          "exportServer",
          "server",
          "Your backend (secret key)",
        ]] as const).map(([name, flow, label]) => (
          <div class="checks" role="group" aria-label={label}>
            <span>{label}:</span>
            {EXPORT_FORMATS.map((format) => (
              <label>
                <input
                  type="checkbox"
                  name={name}
                  value={format}
                  checked={(p.values.exportFormats?.[flow] ?? []).includes(format)}
                />
                {EXPORT_FORMAT_INFO[format].label}
              </label>
            ))}
          </div>
        ))}
      </fieldset>
      <div class="actions">
        <button type="submit">{p.submit}</button>
        <a href="/settings/keys">Cancel</a>
      </div>
    </form>
  );
}

/** Reads the key form's fields from a submitted form. */
export function keyFormValues(
  form: { text(n: string): string; all(n: string): string[] },
): SdkKeyFormValues {
  return {
    label: form.text("label"),
    origins: form.text("origins"),
    projects: form.all("projects"),
    defaultTtlMinutes: form.text("defaultTtl"),
    maxTtlMinutes: form.text("maxTtl"),
    budget: form.text("budget"),
    ratePoints: form.text("ratePoints"),
    rateSeconds: form.text("rateSeconds"),
    ipPoints: form.text("ipPoints"),
    ipSeconds: form.text("ipSeconds"),
    quotaDay: form.text("quotaDay"),
    quotaMonth: form.text("quotaMonth"),
    exportFormats: form.text("exportFormats") === ""
      ? undefined
      : { browser: form.all("exportBrowser"), server: form.all("exportServer") },
  };
}

/** A points-per-window pair of inputs, bounded like every mint rate limit (RATE_LIMIT_BOUNDS). */
function RateLimitInputs(props: {
  label: string;
  points: "ratePoints" | "ipPoints";
  seconds: "rateSeconds" | "ipSeconds";
  values: KeyFormProps["values"];
}) {
  return (
    <div class="row">
      <label>
        {props.label}
        <input
          type="number"
          name={props.points}
          min={RATE_LIMIT_BOUNDS.minPoints}
          max={RATE_LIMIT_BOUNDS.maxPoints}
          required
          value={props.values[props.points]}
        />
      </label>
      <label>
        Window (seconds)
        <input
          type="number"
          name={props.seconds}
          min={RATE_LIMIT_BOUNDS.minDuration}
          max={RATE_LIMIT_BOUNDS.maxDuration}
          required
          value={props.values[props.seconds]}
        />
      </label>
    </div>
  );
}
