/**
 * On a project page: a key for this project on one origin, with every other setting at its
 * default (TTLs, rate limits, no budget or quota) — the shortest way from a project to an embed.
 * It posts to /settings/keys like the full form; a refused origin comes back in that form.
 */
import { TTL_BOUNDS } from "@/lib/hub/sdk_keys.ts";
import { CsrfField } from "./Shell.tsx";

/** Props of the form. */
export interface QuickKeyFormProps {
  slug: string;
  title: string;
  csrf: string;
}

/** One origin field and a button; a link to the full form with this project chosen. */
export function QuickKeyForm({ slug, title, csrf }: QuickKeyFormProps) {
  return (
    <form method="post" action="/settings/keys" class="stack" id="quick-key">
      <CsrfField token={csrf} />
      <input type="hidden" name="label" value={`${title} (website)`.slice(0, 200)} />
      <input type="hidden" name="projects" value={slug} />
      <input type="hidden" name="defaultTtl" value={String(TTL_BOUNDS.defaultTtl / 60)} />
      <input type="hidden" name="maxTtl" value={String(TTL_BOUNDS.defaultMaxTtl / 60)} />
      <label>
        Your site's origin
        <input
          name="origins"
          type="url"
          inputMode="url"
          required
          placeholder="https://shop.example"
          aria-describedby="quick-key-hint"
        />
      </label>
      <p class="muted" id="quick-key-hint">
        Scheme, host and port, as the browser's address bar shows them —{" "}
        <code>http://localhost:5173</code> for local development.
      </p>
      <div class="actions">
        <button type="submit">Create a key for this project</button>
        <a href={`/settings/keys/new?project=${encodeURIComponent(slug)}`}>
          Or choose every setting
        </a>
      </div>
    </form>
  );
}
