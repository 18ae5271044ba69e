/**
 * The settings' "new project" form. The slug may be left empty: the server derives it from the
 * title (lib/hub/project_slug.ts). With JavaScript, the slug field shows that derivation as the
 * title is typed, until the partner edits the slug themselves.
 */
import { CsrfField, ErrorBox } from "./Shell.tsx";

/**
 * The browser's copy of `slugFromTitle` (lib/hub/project_slug.ts); tests/settings hold the two to
 * the same answers.
 */
export const SLUGIFY_JS = `function slugify(title) {
  const slug = title.normalize("NFKD").replace(/[\\u0300-\\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+/, "").slice(0, 64).replace(/-+$/, "");
  return /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,63}$/.test(slug) ? slug : "";
}`;

const SCRIPT = `${SLUGIFY_JS}
{
  const form = document.getElementById("new-project");
  const title = form.elements.title, slug = form.elements.slug;
  let derived = slug.value === "" || slug.value === slugify(title.value);
  title.addEventListener("input", () => { if (derived) slug.value = slugify(title.value); });
  slug.addEventListener("input", () => { derived = slug.value === ""; });
}`;

/** Props of the form. */
export interface NewProjectFormProps {
  csrf: string;
  nonce: string;
  values: { slug: string; title: string };
  error?: string;
}

/** The form, and the script that fills the slug from the title. */
export function NewProjectForm({ csrf, nonce, values, error }: NewProjectFormProps) {
  return (
    <section class="card">
      <h2>New project</h2>
      <form method="post" action="/settings/projects" class="stack" id="new-project">
        <CsrfField token={csrf} />
        <ErrorBox error={error} />
        <div class="row">
          <label>
            Title
            <input type="text" name="title" required maxLength={200} value={values.title} />
          </label>
          <label>
            Slug
            <span class="hint">
              Lowercase letters, digits, hyphens; used in URLs and tokens. Empty: made from the
              title.
            </span>
            <input
              type="text"
              name="slug"
              pattern="[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,63}"
              placeholder="from the title"
              autocapitalize="off"
              spellcheck={false}
              value={values.slug}
            />
          </label>
        </div>
        <div class="actions">
          <button type="submit">Create project</button>
        </div>
      </form>
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: SCRIPT }} />
    </section>
  );
}
