/**
 * GET /settings/projects/<slug> — versions, publishing, preview and embed snippets; POST
 * (multipart: template.dag.json + parameters.schema.json) — publish a new version; POST with
 * `action=preview` — evaluate the current version at its defaults and show its picture. A
 * python-mode version publishes through ./publish-python.tsx (its form is on this page).
 */
import { EmbedSnippets } from "@/components/settings/EmbedSnippets.tsx";
import { PreviewPicture } from "@/components/settings/PreviewPicture.tsx";
import { PythonPublishForm } from "@/components/settings/PythonPublishForm.tsx";
import {
  type KeyAccessOutcome,
  keyAccessOutcome,
  ProjectKeyAccess,
} from "@/components/settings/ProjectKeyAccess.tsx";
import {
  CsrfField,
  ErrorBox,
  FileField,
  Notice,
  ScrollRegion,
  Shell,
  When,
} from "@/components/settings/Shell.tsx";
import { ownProject } from "@/lib/auth/ownership.ts";
import {
  readForm,
  type SettingsFrame,
  settingsFrame,
  siteBaseUrl,
  siteKernelUrl,
} from "@/lib/app/settings_session.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import type { SnippetTarget } from "@/lib/hub/embed_snippets.ts";
import { previewProject, type ProjectPreview } from "@/lib/hub/project_preview.ts";
import { type ProjectKeyChoice, projectKeyChoices } from "@/lib/hub/project_key_access.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import { listSdkKeys, type SdkKeyView } from "@/lib/hub/sdk_keys.ts";
import { AppError, toAppError } from "@/lib/http/problem.ts";
import type { Project } from "@/lib/store/projects.ts";
import { listProjectVersions, type ProjectVersionMeta } from "@/lib/store/project_versions.ts";
import { type Handlers, page, type PageProps, type RouteContext } from "@/lib/app/context.ts";

interface PublishError {
  detail: string;
  file?: string;
  pointer?: string;
  reason?: string;
}

interface ProjectData {
  frame: SettingsFrame;
  project: Project;
  versions: ProjectVersionMeta[];
  keys: SdkKeyView[];
  selectedKey: string | null;
  baseUrl: string;
  kernelUrl: string;
  notice?: string;
  publishError?: PublishError;
  preview?: ProjectPreview;
  previewError?: string;
  keyChoices: ProjectKeyChoice[];
  keyOutcome: KeyAccessOutcome;
}

async function load(ctx: RouteContext): Promise<ProjectData> {
  const { kv } = ctx.var.deps;
  const frame = await settingsFrame(ctx);
  const project = await ownProject(kv, ctx.get("account")!, ctx.req.param("slug") ?? "");
  const keys = (await listSdkKeys(kv, frame.account.partnerId))
    .filter((k) => !k.revoked && k.allowedProjects.includes(project.slug));
  const wanted = ctx.req.query("key");
  const selectedKey = keys.find((k) => k.keyId === wanted)?.keyId ?? keys[0]?.keyId ?? null;
  return {
    frame,
    project,
    versions: (await listProjectVersions(kv, project)).reverse(),
    keys,
    selectedKey,
    baseUrl: siteBaseUrl(ctx),
    kernelUrl: siteKernelUrl(ctx),
    keyChoices: await projectKeyChoices(kv, project),
    keyOutcome: keyAccessOutcome((n) => ctx.req.query(n), ctx.req.queries("key_id") ?? []),
  };
}

async function readJsonUpload(file: File | null, name: string): Promise<unknown> {
  if (!file || file.size === 0) {
    throw new AppError("validation_failed", `Choose the file ${name}.`, {
      extensions: { file: name },
    });
  }
  try {
    return JSON.parse(await file.text());
  } catch (err) {
    throw new AppError("invalid_body", `${name} is not valid JSON: ${(err as Error).message}`, {
      extensions: { file: name },
    });
  }
}

export const handler: Handlers = {
  async GET(ctx) {
    const data = await load(ctx);
    const done = ctx.req.query("published");
    if (done) data.notice = `Published version ${done.slice(0, 6)}.`;
    return page(data, data.project.title);
  },
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const data = await load(ctx);
    const form = await readForm(ctx);
    if (form.text("action") === "preview") {
      const render = ctx.var.deps.render;
      try {
        if (!render) throw new AppError("service_unavailable", "This instance does not render.");
        data.preview = await previewProject(kv, (dag) => render.evaluate(dag), data.project);
      } catch (err) {
        const e = toAppError(err);
        if (e.code === "internal_error") throw err;
        data.previewError = e.message;
      }
      return page(data, data.project.title);
    }
    try {
      const template = await readJsonUpload(form.file("template"), "template.dag.json");
      const schema = await readJsonUpload(form.file("schema"), "parameters.schema.json");
      const meta = await publishProject(kv, data.project.slug, { template, schema }, {
        partnerId: data.frame.account.partnerId,
        now: clock(),
      });
      await appendAudit(kv, {
        partnerId: data.frame.account.partnerId,
        actor: { accountId: data.frame.account.id, email: data.frame.account.email },
        action: "project.publish",
        target: data.project.slug,
        details: { version: meta.version, templateHash: meta.templateHash.slice(0, 16) },
      }, clock());
      return ctx.redirect(
        `/settings/projects/${data.project.slug}?published=${meta.version}`,
        303,
      );
    } catch (err) {
      const e = toAppError(err);
      if (e.code === "internal_error") throw err;
      data.publishError = {
        detail: e.message,
        file: typeof e.extensions.file === "string" ? e.extensions.file : undefined,
        pointer: typeof e.extensions.pointer === "string" ? e.extensions.pointer : undefined,
        reason: typeof e.extensions.reason === "string" ? e.extensions.reason : undefined,
      };
      return { ...page(data, data.project.title), status: e.status };
    }
  },
};

export default function ProjectPage({ data, nonce }: PageProps<ProjectData>) {
  const { project, frame } = data;
  const key = data.keys.find((k) => k.keyId === data.selectedKey);
  const target: SnippetTarget | null = key
    ? {
      baseUrl: data.baseUrl,
      kernelUrl: data.kernelUrl,
      keyId: key.keyId,
      project: project.slug,
      origin: key.allowedOrigins[0],
      title: project.title,
    }
    : null;
  // The refused file's input points at the message (both when the problem names no file).
  const json = (file: string) => {
    const e = data.publishError;
    const inError = !!e && (!e.file || e.file === file);
    return { accept: ".json,application/json", inError, errorId: "publish-error" };
  };
  // A published project leads with how to put it on a site; an unpublished one with publishing.
  const reach = (
    <>
      <ProjectKeyAccess
        slug={project.slug}
        title={project.title}
        csrf={frame.csrf}
        keys={data.keyChoices}
        outcome={data.keyOutcome}
      />

      <section class="card" id="embed">
        <h2>Embed</h2>
        {target
          ? (
            <>
              <form method="get" action={`/settings/projects/${project.slug}`} class="actions">
                <label class="field">
                  Key
                  <select name="key">
                    {data.keys.map((k) => (
                      <option value={k.keyId} selected={k.keyId === target.keyId}>
                        {k.label} ({k.keyId})
                      </option>
                    ))}
                  </select>
                </label>
                <button type="submit" class="secondary">Use this key</button>
              </form>
              <EmbedSnippets target={target} />
            </>
          )
          : (
            <p class="muted">
              No active key allows this project yet. <a href="/settings/keys/new">Create a key</a>
              {" "}
              to get embed snippets.
            </p>
          )}
      </section>
    </>
  );
  return (
    <Shell {...frame} section="projects" nonce={nonce}>
      <div class="page-head">
        <h1>{project.title}</h1>
        <code>{project.slug}</code>
      </div>
      <Notice text={data.notice} />
      {project.currentVersion ? reach : null}

      <section class="card">
        <h2>Publish a new version</h2>
        <p>
          Upload the frozen template and its parameter schema (docs/dag.md). Both are validated
          together; a version is immutable once published.
        </p>
        {data.publishError
          ? (
            <div class="error" role="alert" id="publish-error">
              <div>{data.publishError.detail}</div>
              {data.publishError.pointer !== undefined
                ? (
                  <div>
                    At <code>{data.publishError.file}</code> →{" "}
                    <code>{data.publishError.pointer || "(document root)"}</code>
                    {data.publishError.reason ? ` (${data.publishError.reason})` : ""}
                  </div>
                )
                : null}
            </div>
          )
          : null}
        <form
          method="post"
          action={`/settings/projects/${project.slug}`}
          enctype="multipart/form-data"
          class="stack"
        >
          <CsrfField token={frame.csrf} />
          <div class="row">
            <FileField file="template.dag.json" name="template" {...json("template.dag.json")} />
            <FileField
              file="parameters.schema.json"
              name="schema"
              {...json("parameters.schema.json")}
            />
          </div>
          <div class="actions">
            <button type="submit">Publish</button>
          </div>
        </form>
      </section>
      <PythonPublishForm slug={project.slug} csrf={frame.csrf} />

      <section class="card">
        <h2>Versions</h2>
        {data.versions.length === 0
          ? <p class="muted">Nothing published yet.</p>
          : (
            <ScrollRegion label="Versions">
              <table class="list" id="versions">
                <thead>
                  <tr>
                    <th class="num">Version</th>
                    <th>Published</th>
                    <th>Template hash</th>
                    <th>Mode</th>
                  </tr>
                </thead>
                <tbody>
                  {data.versions.map((v) => (
                    <tr>
                      <td class="num">
                        {v.version}
                        {v.version === project.currentVersion ? " (current)" : ""}
                      </td>
                      <td>
                        <When ms={v.createdAt} />
                      </td>
                      <td>
                        <code>{v.templateHash.slice(0, 16)}…</code>
                      </td>
                      <td>{v.mode}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
      </section>

      {project.currentVersion
        ? (
          <section class="card">
            <h2>Preview</h2>
            <p>Evaluates the current version with every parameter at its default.</p>
            <form method="post" action={`/settings/projects/${project.slug}`}>
              <CsrfField token={frame.csrf} />
              <input type="hidden" name="action" value="preview" />
              <button type="submit" class="secondary">Render preview</button>
            </form>
            <ErrorBox error={data.previewError} id="preview-error" />
            {data.preview ? <PreviewPicture preview={data.preview} title={project.title} /> : null}
            {data.preview
              ? (
                <dl class="status" id="preview">
                  <dt>Version</dt>
                  <dd>{data.preview.version}</dd>
                  <dt>Triangles</dt>
                  <dd id="preview-triangles">{data.preview.triangles.toLocaleString("en")}</dd>
                  <dt>Bounding box</dt>
                  <dd>
                    {data.preview.bbox.max.map((m, i) => (m - data.preview!.bbox.min[i]).toFixed(1))
                      .join(" × ")} (min{" "}
                    {data.preview.bbox.min.map((n) => n.toFixed(1)).join(", ")})
                  </dd>
                  <dt>Volume</dt>
                  <dd>{data.preview.volume.toFixed(0)} (cubic model units)</dd>
                  <dt>Parts</dt>
                  <dd>
                    {data.preview.parts.map((p) => `${p.name} ×${p.instances}`).join(", ")}
                  </dd>
                </dl>
              )
              : null}
          </section>
        )
        : null}

      {project.currentVersion ? null : reach}
    </Shell>
  );
}
