/**
 * GET /settings/projects — the partner's projects, the "new project" form and the starter
 * gallery; POST — create a project (the slug derived from the title when left empty), or with
 * `action=starter` create one from an example and publish it.
 */
import { NewProjectForm } from "@/components/settings/NewProjectForm.tsx";
import { ScrollRegion, Shell, When } from "@/components/settings/Shell.tsx";
import { StarterGallery } from "@/components/settings/StarterGallery.tsx";
import { partnerProjects } from "@/lib/auth/ownership.ts";
import { readForm, type SettingsFrame, settingsFrame } from "@/lib/app/settings_session.ts";
import { formError } from "@/lib/app/sign_in_flow.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import { freeSlug, slugFromTitle } from "@/lib/hub/project_slug.ts";
import { listStarters, publishStarter, type Starter } from "@/lib/hub/starter_projects.ts";
import { AppError } from "@/lib/http/problem.ts";
import { createProject, type Project } from "@/lib/store/projects.ts";
import { type Handlers, page, type PageProps, type RouteContext } from "@/lib/app/context.ts";

interface ProjectsData {
  frame: SettingsFrame;
  projects: Project[];
  starters: Starter[];
  values: { slug: string; title: string };
  error?: string;
  starterError?: string;
}

async function load(ctx: RouteContext): Promise<Omit<ProjectsData, "values">> {
  const frame = await settingsFrame(ctx);
  const projects = await partnerProjects(ctx.var.deps.kv, frame.account.partnerId);
  projects.sort((a, b) => b.createdAt - a.createdAt);
  return { frame, projects, starters: await listStarters() };
}

/** The slug typed, or (left empty) the first free slug the title makes. */
async function slugFor(kv: Deno.Kv, partnerId: string, values: ProjectsData["values"]) {
  if (values.slug) return values.slug;
  const derived = slugFromTitle(values.title);
  if (!derived) {
    throw new AppError(
      "validation_failed",
      "The title has no letters or digits to make a slug from: type a slug.",
    );
  }
  return await freeSlug(kv, partnerId, derived);
}

export const handler: Handlers = {
  async GET(ctx) {
    return page<ProjectsData>({ ...await load(ctx), values: { slug: "", title: "" } }, "Projects");
  },
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const base = await load(ctx);
    const form = await readForm(ctx);
    const { account } = base.frame;
    const actor = { accountId: account.id, email: account.email };
    if (form.text("action") === "starter") {
      try {
        const { project, version } = await publishStarter(kv, {
          partnerId: account.partnerId,
          name: form.text("starter"),
        }, { now: clock() });
        await appendAudit(kv, {
          partnerId: account.partnerId,
          actor,
          action: "project.create",
          target: project.slug,
          details: { title: project.title, starter: form.text("starter") },
        }, clock());
        await appendAudit(kv, {
          partnerId: account.partnerId,
          actor,
          action: "project.publish",
          target: project.slug,
          details: { version: version.version, templateHash: version.templateHash.slice(0, 16) },
        }, clock());
        return ctx.redirect(
          `/settings/projects/${project.slug}?published=${version.version}`,
          303,
        );
      } catch (err) {
        const values = { slug: "", title: "" };
        return {
          ...page<ProjectsData>({ ...base, values, starterError: formError(err) }, "Projects"),
          status: 422,
        };
      }
    }
    const values = { slug: form.text("slug").trim(), title: form.text("title") };
    try {
      const project = await createProject(kv, {
        partnerId: account.partnerId,
        slug: await slugFor(kv, account.partnerId, values),
        title: values.title,
      }, clock());
      await appendAudit(kv, {
        partnerId: project.partnerId,
        actor,
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
        {data.projects.length === 0
          ? <p class="muted">No projects yet.</p>
          : (
            <ScrollRegion label="Projects">
              <table class="list">
                <thead>
                  <tr>
                    <th>Title</th>
                    <th>Slug</th>
                    <th class="num">Current version</th>
                    <th class="hide-narrow">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {data.projects.map((p) => (
                    <tr>
                      <td class="wrap">
                        <a href={`/settings/projects/${p.slug}`}>{p.title}</a>
                      </td>
                      <td class="wrap">
                        <code>{p.slug}</code>
                      </td>
                      <td class="num">{p.currentVersion ?? "—"}</td>
                      <td class="hide-narrow">
                        <When ms={p.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
      </section>
      <NewProjectForm
        csrf={data.frame.csrf}
        nonce={nonce}
        values={data.values}
        error={data.error}
      />
      <StarterGallery
        starters={data.starters}
        csrf={data.frame.csrf}
        taken={new Set(data.projects.map((p) => p.slug))}
        error={data.starterError}
      />
    </Shell>
  );
}
