/**
 * On the page that shows a key once: where to get the embed snippets (iframe, custom element,
 * React from npm, server flow) of each project the key allows — the project page with this key
 * chosen, at its Embed section.
 */

/** Props of the links. */
export interface KeyEmbedLinksProps {
  keyId: string;
  projects: Array<{ slug: string; title: string }>;
}

/** The project page URL that shows `slug`'s embed snippets for `keyId`. */
export function embedSnippetsHref(slug: string, keyId: string): string {
  return `/settings/projects/${encodeURIComponent(slug)}?key=${encodeURIComponent(keyId)}#embed`;
}

/** A card linking to the embed snippets of each of the key's projects. */
export function KeyEmbedLinks({ keyId, projects }: KeyEmbedLinksProps) {
  return (
    <section class="card" id="embed-links">
      <h2>Embed snippets</h2>
      {projects.length
        ? (
          <>
            <p>
              Ready-to-paste embeds with this key — iframe, custom element, React (npm) and the
              server flow — are on each project's page:
            </p>
            <ul class="embed-links">
              {projects.map((p) => (
                <li>
                  <a href={embedSnippetsHref(p.slug, keyId)}>{p.title}</a> <code>{p.slug}</code>
                </li>
              ))}
            </ul>
          </>
        )
        : (
          <p class="muted">
            This key allows no project yet: add one on{" "}
            <a href={`/settings/keys/${keyId}`}>
              the key's page
            </a>, then its project page shows the embed snippets.
          </p>
        )}
    </section>
  );
}
