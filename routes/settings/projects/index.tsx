/** GET /settings/projects — the partner's projects; POST — create one. */
import { CsrfField, ErrorBox, Shell, When } from "@/components/settings/Shell.tsx";
import { partnerProjects } from "@/lib/auth/ownership.ts";
import { readForm, type SettingsFrame, settingsFrame } from "@/lib/app/settings_session.ts";
import { formError } from "@/lib/app/sign_in_flow.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import { createProject, type Project } from "@/lib/store/projects.ts";
import { type Handlers, page, type PageProps, type RouteContext } from "@/lib/app/context.ts";

interface ProjectsData {
  frame: SettingsFrame;
  projects: Project[];
  values: { slug: string; title: string };
  error?: string;
}

async function load(ctx: RouteContext): Promise<Omit<ProjectsData, "values">> {
  const frame = await settingsFrame(ctx);
  const projects = await partnerProjects(ctx.var.deps.kv, frame.account.partnerId);
  projects.sort((a, b) => b.createdAt - a.createdAt);
  return { frame, projects };
}

export const handler: Handlers = {
  async GET(ctx) {
    return page<ProjectsData>({ ...await load(ctx), values: { slug: "", title: "" } }, "Projects");
  },
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const base = await load(ctx);
    const form = await readForm(ctx);
    const values = { slug: form.text("slug").trim(), title: form.text("title") };
    try {
      const project = await createProject(kv, {
        partnerId: base.frame.account.partnerId,
        slug: values.slug,
        title: values.title,
      }, clock());
      await appendAudit(kv, {
        partnerId: project.partnerId,
        actor: { accountId: base.frame.account.id, email: base.frame.account.email },
        action: "project.create",
        target: project.slug,
        details: { title: project.title },
      }, clock());
      return ctx.redirect(`/settings/projects/${project.slug}`, 303);
    } catch (err) {
      return {
        ...page<ProjectsData>({ ...base, values, error: formError(err) }, "Projects"),
        status: 422,
      };
    }
  },
};

export default function Projects({ data, nonce }: PageProps<ProjectsData>) {
  return (
    <Shell {...data.frame} section="projects" nonce={nonce}>
      <h1>Projects</h1>
      <section class="card">
        {data.projects.length === 0 ? <p class="muted">No projects yet.</p> : (
          <table class="list">
            <thead>
              <tr>
                <th>Title</th>
                <th>Slug</th>
                <th class="num">Current version</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {data.projects.map((p) => (
                <tr>
                  <td>
                    <a href={`/settings/projects/${p.slug}`}>{p.title}</a>
                  </td>
                  <td>
                    <code>{p.slug}</code>
                  </td>
                  <td class="num">{p.currentVersion ?? "—"}</td>
                  <td>
                    <When ms={p.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="card">
        <h2>New project</h2>
        <form method="post" action="/settings/projects" class="stack">
          <CsrfField token={data.frame.csrf} />
          <ErrorBox error={data.error} />
          <div class="row">
            <label>
              Title
              <input type="text" name="title" required maxLength={200} value={data.values.title} />
            </label>
            <label>
              Slug
              <span class="hint">Lowercase letters, digits, hyphens; used in URLs and tokens.</span>
              <input
                type="text"
                name="slug"
                required
                pattern="[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,63}"
                value={data.values.slug}
              />
            </label>
          </div>
          <div class="actions">
            <button type="submit">Create project</button>
          </div>
        </form>
      </section>
    </Shell>
  );
}
