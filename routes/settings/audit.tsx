/** GET /settings/audit — who changed which key or project, when; `?format=csv|json` exports it. */
import { ScrollRegion, Shell, When } from "@/components/settings/Shell.tsx";
import { type SettingsFrame, settingsFrame } from "@/lib/app/settings_session.ts";
import { auditCsv, type AuditEntry, listAudit } from "@/lib/hub/audit.ts";
import { type Handlers, page, type PageProps } from "@/lib/app/context.ts";

interface AuditData {
  frame: SettingsFrame;
  entries: AuditEntry[];
}

export const handler: Handlers = {
  async GET(ctx) {
    const frame = await settingsFrame(ctx);
    const entries = await listAudit(ctx.var.deps.kv, frame.account.partnerId);
    const format = ctx.req.query("format");
    if (format === "csv") {
      return new Response(auditCsv(entries), {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": 'attachment; filename="audit.csv"',
          "cache-control": "no-store",
        },
      });
    }
    if (format === "json") {
      return Response.json({ entries }, {
        headers: {
          "content-disposition": 'attachment; filename="audit.json"',
          "cache-control": "no-store",
        },
      });
    }
    return page<AuditData>({ frame, entries }, "Audit log");
  },
};

export default function Audit({ data, nonce }: PageProps<AuditData>) {
  return (
    <Shell {...data.frame} section="audit" nonce={nonce}>
      <div class="page-head">
        <h1>Audit log</h1>
        <div class="actions">
          <a class="button" href="/settings/audit?format=csv">Export CSV</a>
          <a class="button" href="/settings/audit?format=json">Export JSON</a>
        </div>
      </div>
      <section class="card">
        {data.entries.length === 0
          ? <p class="muted">No changes yet.</p>
          : (
            <ScrollRegion label="Audit log">
              <table class="list" id="audit">
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Who</th>
                    <th>Action</th>
                    <th>Target</th>
                    <th>Details</th>
                  </tr>
                </thead>
                <tbody>
                  {data.entries.map((e) => (
                    <tr>
                      <td>
                        <When ms={e.at} />
                      </td>
                      <td>{e.actor.email}</td>
                      <td>
                        <code>{e.action}</code>
                      </td>
                      <td>
                        <code>{e.target}</code>
                      </td>
                      <td class="muted wrap">{summarize(e.details)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
      </section>
    </Shell>
  );
}

function summarize(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : String(v)}`)
    .join(" · ");
}
