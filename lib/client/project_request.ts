/**
 * The published-project request (`GET /api/v1/projects/<slug>[?key=…|?partner=…][&version=n]`):
 * its URL and `fetch` options in one place for the `ProjectLoader` and for the embed's early
 * start (lib/client/prefetch.ts), which must send the very same request for a loader to adopt its
 * answer.
 *
 * Runs in browsers: no Deno APIs here.
 */

/**
 * Whose project a slug means: a publishable keyId of the partner (`key`), or the partner id
 * (`partner`, a session token's claim). Neither: the slug must name one published project.
 */
export interface ProjectScope {
  key?: string;
  partner?: string;
}

/** The URL of `slug` (at `version`, else the current one) on the service at `baseUrl`. */
export function projectUrl(
  baseUrl: string,
  slug: string,
  version?: number,
  scope: ProjectScope = {},
): string {
  const query = new URLSearchParams();
  // One of the two: the keyId is what the browser flow holds, and it is checked by the hub.
  if (scope.key) query.set("key", scope.key);
  else if (scope.partner) query.set("partner", scope.partner);
  if (version !== undefined) query.set("version", String(version));
  return `${baseUrl.replace(/\/+$/, "")}/api/v1/projects/${encodeURIComponent(slug)}` +
    (query.size ? `?${query}` : "");
}

/** The request's `fetch` options: JSON, no cookies, revalidating `etag` when one is kept. */
export function projectInit(etag?: string): RequestInit {
  const headers: Record<string, string> = { accept: "application/json" };
  if (etag) headers["if-none-match"] = etag;
  return { headers, credentials: "omit" };
}
