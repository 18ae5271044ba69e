/** GET /settings/keys/new — the form for a new key (it posts to /settings/keys). */
import { DEFAULT_EXPORT_FORMATS } from "@/lib/dag/export_format.ts";
import { KeyForm } from "@/components/settings/KeyForm.tsx";
import { DEFAULT_RATE_LIMIT } from "@/lib/hub/rate_limit.ts";
import { DEFAULT_CLIENT_IP_RATE_LIMIT } from "@/lib/hub/client_ip_limit.ts";
import { Shell } from "@/components/settings/Shell.tsx";
import { partnerProjects } from "@/lib/auth/ownership.ts";
import { type SettingsFrame, settingsFrame } from "@/lib/app/settings_session.ts";
import { TTL_BOUNDS } from "@/lib/hub/sdk_keys.ts";
import { type Handlers, page, type PageProps } from "@/lib/app/context.ts";

interface NewKeyData {
  frame: SettingsFrame;
  projects: Array<{ slug: string; title: string }>;
  /** Chosen beforehand: the only project, or `?project=` (a project page's link). */
  chosen: string[];
}

export const handler: Handlers = {
  async GET(ctx) {
    const frame = await settingsFrame(ctx);
    const projects = await partnerProjects(ctx.var.deps.kv, frame.account.partnerId);
    const wanted = ctx.req.query("project");
    const chosen = projects.length === 1
      ? [projects[0].slug]
      : projects.filter((p) => p.slug === wanted).map((p) => p.slug);
    return page<NewKeyData>({ frame, projects, chosen }, "New key");
  },
};

export default function NewKey({ data, nonce }: PageProps<NewKeyData>) {
  const values = {
    label: "",
    origins: "",
    projects: data.chosen,
    defaultTtlMinutes: String(TTL_BOUNDS.defaultTtl / 60),
    maxTtlMinutes: String(TTL_BOUNDS.defaultMaxTtl / 60),
    budget: "",
    ratePoints: String(DEFAULT_RATE_LIMIT.points),
    rateSeconds: String(DEFAULT_RATE_LIMIT.durationSeconds),
    ipPoints: String(DEFAULT_CLIENT_IP_RATE_LIMIT.points),
    ipSeconds: String(DEFAULT_CLIENT_IP_RATE_LIMIT.durationSeconds),
    quotaDay: "",
    quotaMonth: "",
    exportFormats: {
      browser: [...DEFAULT_EXPORT_FORMATS.browser],
      server: [...DEFAULT_EXPORT_FORMATS.server],
    },
  };
  return (
    <Shell {...data.frame} section="keys" nonce={nonce}>
      <h1>New SDK API key</h1>
      <section class="card">
        <KeyForm
          action="/settings/keys"
          csrf={data.frame.csrf}
          values={values}
          projects={data.projects}
          submit="Create key"
        />
      </section>
    </Shell>
  );
}
