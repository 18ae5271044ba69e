/** The starter gallery: one card and one POST form per example project (lib/hub/starter_projects.ts). */
import type { Starter } from "@/lib/hub/starter_projects.ts";
import { CsrfField, ErrorBox } from "./Shell.tsx";

/** Props of the gallery. */
export interface StarterGalleryProps {
  starters: Starter[];
  csrf: string;
  /** Slugs the partner already has (a starter then lands under a free variant). */
  taken: ReadonlySet<string>;
  /** Why the last starter could not be added. */
  error?: string;
}

/** A card per example with a one-click "add to my projects" form. */
export function StarterGallery({ starters, csrf, taken, error }: StarterGalleryProps) {
  if (starters.length === 0) return null;
  return (
    <section class="card" id="starters">
      <h2>Start from an example</h2>
      <p class="muted">
        Creates the project in your account and publishes the example as its first version; add it
        to a key on the project's page.
      </p>
      <ErrorBox error={error} id="starter-error" />
      <ul class="starters">
        {starters.map((s) => (
          <li class="starter">
            <div class="starter-head">
              <strong>{s.title}</strong>
              <code>{s.name}</code>
            </div>
            <p>{s.description}</p>
            <p class="muted small">
              {s.parameters} parameters · {s.mode === "python" ? "Python design" : "DAG template"}
              {taken.has(s.name) ? ` · you have "${s.name}": a new slug is chosen` : ""}
            </p>
            <form method="post" action="/settings/projects">
              <CsrfField token={csrf} />
              <input type="hidden" name="action" value="starter" />
              <input type="hidden" name="starter" value={s.name} />
              <button type="submit" class="secondary" aria-label={`Use this starter: ${s.title}`}>
                Use this starter
              </button>
            </form>
          </li>
        ))}
      </ul>
    </section>
  );
}
