/**
 * POST /settings/projects/<slug>/publish-python (multipart: `source` = design.py, `schema` =
 * parameters.schema.json) — publishes a python-mode version: the files the CLI's
 * `project publish --dir` takes from a python-mode folder, read and checked the same way
 * (lib/hub/project_upload.ts, lib/hub/publish.ts), so both refuse with the same problem codes.
 * Success goes back to the project page; a refusal shows the form again with the problem and its
 * status. GET shows the form alone. CSRF: the settings middleware, as for every settings form.
 */
import {
  type PublishProblem,
  PythonPublishForm,
} from "@/components/settings/PythonPublishForm.tsx";
import { Shell } from "@/components/settings/Shell.tsx";
import { ownProject } from "@/lib/auth/ownership.ts";
import { readForm, type SettingsFrame, settingsFrame } from "@/lib/app/settings_session.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import { pythonUploadDocuments } from "@/lib/hub/project_upload.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import { toAppError } from "@/lib/http/problem.ts";
import type { Project } from "@/lib/store/projects.ts";
import { type Handlers, page, type PageProps } from "@/lib/app/context.ts";

interface PublishPythonData {
  frame: SettingsFrame;
  project: Project;
  error?: PublishProblem;
}

export const handler: Handlers = {
  async GET(ctx) {
    const frame = await settingsFrame(ctx);
    const project = await ownProject(ctx.var.deps.kv, ctx.get("account")!, ctx.req.param("slug")!);
    return page<PublishPythonData>({ frame, project }, `Publish ${project.title}`);
  },
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const frame = await settingsFrame(ctx);
    const project = await ownProject(kv, ctx.get("account")!, ctx.req.param("slug")!);
    const form = await readForm(ctx);
    try {
      const docs = await pythonUploadDocuments({
        source: form.file("source"),
        schema: form.file("schema"),
      });
      const meta = await publishProject(kv, project.slug, docs, {
        partnerId: frame.account.partnerId,
        now: clock(),
      });
      await appendAudit(kv, {
        partnerId: frame.account.partnerId,
        actor: { accountId: frame.account.id, email: frame.account.email },
        action: "project.publish",
        target: project.slug,
        details: {
          version: meta.version,
          mode: meta.mode,
          templateHash: meta.templateHash.slice(0, 16),
        },
      }, clock());
      return ctx.redirect(`/settings/projects/${project.slug}?published=${meta.version}`, 303);
    } catch (err) {
      const e = toAppError(err);
      if (e.code === "internal_error") throw err;
      const text = (name: string) =>
        typeof e.extensions[name] === "string" ? e.extensions[name] as string : undefined;
      const error: PublishProblem = {
        code: e.code,
        detail: e.message,
        file: text("file"),
        pointer: text("pointer"),
        reason: text("reason"),
      };
      return {
        ...page<PublishPythonData>({ frame, project, error }, `Publish ${project.title}`),
        status: e.status,
      };
    }
  },
};

export default function PublishPython({ data, nonce }: PageProps<PublishPythonData>) {
  const { project, frame } = data;
  return (
    <Shell {...frame} section="projects" nonce={nonce}>
      <div class="page-head">
        <h1>{project.title}</h1>
        <code>{project.slug}</code>
      </div>
      <PythonPublishForm slug={project.slug} csrf={frame.csrf} error={data.error} />
      <p>
        <a href={`/settings/projects/${project.slug}`}>Back to the project</a>
      </p>
    </Shell>
  );
}
