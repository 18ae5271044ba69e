/**
 * The project page's "Keys" card: a checkbox per active key of the partner, checked where the key
 * may mint for this project; saving posts to /settings/projects/<slug>/keys
 * (lib/hub/project_key_access.ts).
 */
import type { ProjectKeyChoice } from "@/lib/hub/project_key_access.ts";
import { QuickKeyForm } from "./QuickKeyForm.tsx";
import { CsrfField, ErrorBox, Notice } from "./Shell.tsx";

/** What the last save said: the redirect's `keys` parameter and the `key_id`s it names. */
export interface KeyAccessOutcome {
  /** `saved`, `unchanged`, or why nothing was changed (`last_project`, `unknown_keys`). */
  keys: string | null;
  keyIds: string[];
}

/** Reads the outcome of the last save from the project page's query. */
export function keyAccessOutcome(query: (name: string) => string | undefined, all: string[]) {
  return { keys: query("keys") ?? null, keyIds: all.slice(0, 20) } satisfies KeyAccessOutcome;
}

/** Props of the card. */
export interface ProjectKeyAccessProps {
  slug: string;
  title: string;
  csrf: string;
  keys: ProjectKeyChoice[];
  outcome?: KeyAccessOutcome;
}

function outcomeText(outcome: KeyAccessOutcome | undefined, keys: ProjectKeyChoice[]) {
  const labels = (outcome?.keyIds ?? [])
    .map((id) => keys.find((k) => k.keyId === id)?.label ?? id)
    .map((l) => `"${l}"`).join(", ");
  switch (outcome?.keys) {
    case "saved":
      return { notice: "Saved: the keys' allowed projects are updated." };
    case "unchanged":
      return { notice: "Nothing to change." };
    case "last_project":
      return {
        error: `Nothing was changed: ${labels} would have no project left, and a key needs at ` +
          "least one allowed project (revoke the key instead).",
      };
    case "unknown_keys":
      return { error: "Nothing was changed: a key in the form is no longer active. Try again." };
    case undefined:
    case null:
      return {};
    default:
      return { error: "Nothing was changed." };
  }
}

/** The card (keys that may mint for the project, editable). */
export function ProjectKeyAccess({ slug, title, csrf, keys, outcome }: ProjectKeyAccessProps) {
  const { notice, error } = outcomeText(outcome, keys);
  return (
    <section class="card" id="keys">
      <h2>Keys</h2>
      {keys.length === 0
        ? (
          <>
            <p class="muted">No active keys yet: create one to put this project on your site.</p>
            <QuickKeyForm slug={slug} title={title} csrf={csrf} />
          </>
        )
        : (
          <form method="post" action={`/settings/projects/${slug}/keys`} class="stack">
            <CsrfField token={csrf} />
            <Notice text={notice} />
            <ErrorBox error={error} id="key-access-error" />
            <p class="muted">Keys that may mint tokens for this project:</p>
            <div class="checks key-checks">
              {keys.map((k) => (
                <label>
                  <input type="checkbox" name="keys" value={k.keyId} checked={k.allowed} />
                  <span>
                    {k.label} <code>{k.keyId}</code>
                  </span>
                </label>
              ))}
            </div>
            <div class="actions">
              <button type="submit" class="secondary">Save keys</button>
            </div>
          </form>
        )}
      {keys.length
        ? (
          <details class="quick-key">
            <summary>A new key for this project</summary>
            <QuickKeyForm slug={slug} title={title} csrf={csrf} />
          </details>
        )
        : null}
    </section>
  );
}
