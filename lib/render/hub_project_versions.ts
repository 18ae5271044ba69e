/**
 * Published project versions read from the hub's feed
 * (`GET /api/v1/partners/<partnerId>/projects/<slug>/versions/<version|current>`,
 * lib/hub/project_version_feed.ts): the `ProjectVersionSource` of a kernel node, which holds no
 * Deno KV. The current version is revalidated with `If-None-Match`, so an unchanged project costs
 * the hub one KV read and the wire a 304; a numbered version is fetched once and cached by
 * lib/render/project_templates.ts for as long as it stays in its bounded cache.
 */
import type { ProjectRef } from "../store/projects.ts";
import { type HubLink, HubUnreachableError } from "./hub_link.ts";
import type {
  CurrentVersion,
  ProjectVersionDocument,
  ProjectVersionSource,
} from "./project_templates.ts";

/** The hub's project version feed as a `ProjectVersionSource`. */
export class HubProjectVersions implements ProjectVersionSource {
  readonly #hub: HubLink;

  /** Reads the feed of the hub behind `hub`. */
  constructor(hub: HubLink) {
    this.#hub = hub;
  }

  /** The current version with its documents, or `previous` again when the hub answers 304. */
  async current(ref: ProjectRef, previous?: CurrentVersion): Promise<CurrentVersion | null> {
    const answer = await this.#hub.getJson<unknown>(path(ref, "current"), previous?.tag);
    if (answer.status === 404) return null;
    if (answer.status === 304) {
      if (!previous) throw new HubUnreachableError("the hub answered 304 to a first request");
      return previous;
    }
    const document = parseDocument(answer.body, ref);
    return { version: document.version, tag: answer.etag, document };
  }

  /** Version `version`, or null when the hub has no such version. */
  async version(ref: ProjectRef, version: number): Promise<ProjectVersionDocument | null> {
    const answer = await this.#hub.getJson<unknown>(path(ref, String(version)));
    if (answer.status === 404) return null;
    if (answer.status === 304) throw new HubUnreachableError("the hub answered 304 unasked");
    const document = parseDocument(answer.body, ref);
    if (document.version !== version) {
      throw new HubUnreachableError(`the hub sent version ${document.version} for ${version}`);
    }
    return document;
  }
}

function path(ref: ProjectRef, version: string): string {
  const p = encodeURIComponent(ref.partnerId);
  return `/api/v1/partners/${p}/projects/${encodeURIComponent(ref.slug)}/versions/${version}`;
}

/** The feed's document, checked; the template and schema are validated again by the caller. */
function parseDocument(body: unknown, ref: ProjectRef): ProjectVersionDocument {
  const d = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const ok = d.partnerId === ref.partnerId && d.slug === ref.slug &&
    Number.isSafeInteger(d.version) && (d.version as number) > 0 &&
    (d.mode === "template" || d.mode === "python") &&
    (d.mode === "python" || (typeof d.template === "object" && d.template !== null)) &&
    typeof d.schema === "object" && d.schema !== null && typeof d.templateHash === "string";
  if (!ok) throw new HubUnreachableError("the hub sent a malformed project version");
  return {
    partnerId: ref.partnerId,
    slug: ref.slug,
    version: d.version as number,
    mode: d.mode as ProjectVersionDocument["mode"],
    template: d.mode === "python" ? null : d.template,
    schema: d.schema,
    templateHash: d.templateHash as string,
  };
}
