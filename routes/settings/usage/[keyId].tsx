/** GET /settings/usage/<keyId> — one key's usage; `?format=csv|json` exports the day buckets. */
import { percent, ScrollRegion, Shell, When } from "@/components/settings/Shell.tsx";
import { ownKey } from "@/lib/auth/ownership.ts";
import { type SettingsFrame, settingsFrame } from "@/lib/app/settings_session.ts";
import {
  quotaCounterReader,
  type QuotaPeriodUsage,
  type QuotaUsage,
  quotaUsage,
  usageCsv,
  type UsageSummary,
  usageSummary,
} from "@/lib/hub/usage.ts";
import { UNLIMITED_RENDER_QUOTA } from "@/lib/store/sdk_keys.ts";
import { type Handlers, page, type PageProps } from "@/lib/app/context.ts";

interface KeyUsageData {
  frame: SettingsFrame;
  label: string;
  usage: UsageSummary;
  quota: QuotaUsage;
}

export const handler: Handlers = {
  async GET(ctx) {
    const { kv } = ctx.var.deps;
    await ctx.var.deps.usage?.flush();
    const frame = await settingsFrame(ctx);
    const key = await ownKey(kv, ctx.get("account")!, ctx.req.param("keyId") ?? "");
    const usage = await usageSummary(kv, key.keyId);
    const quota = await quotaUsage(
      quotaCounterReader(ctx.var.deps),
      key.keyId,
      key.renderQuota ?? UNLIMITED_RENDER_QUOTA,
      usage.rows,
      ctx.var.deps.clock(),
    );
    const format = ctx.req.query("format");
    const name = `usage-${key.keyId}`;
    if (format === "csv") {
      return new Response(usageCsv(key.keyId, usage.rows), {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="${name}.csv"`,
          "cache-control": "no-store",
        },
      });
    }
    if (format === "json") {
      const { rows, ...summary } = usage;
      return Response.json({ ...summary, label: key.label, quota, rows }, {
        headers: {
          "content-disposition": `attachment; filename="${name}.json"`,
          "cache-control": "no-store",
        },
      });
    }
    return page<KeyUsageData>(
      { frame, label: key.label, usage, quota },
      `Usage · ${key.label}`,
    );
  },
};

/** One period's "used / limit" figure. */
function QuotaStat(p: { id: string; label: string; period: QuotaPeriodUsage }) {
  const used = p.period.used === null ? "unavailable" : String(p.period.used);
  const limit = p.period.limit === null ? "unlimited" : String(p.period.limit);
  return (
    <div class="stat" data-stat={p.id} data-used={used} data-limit={limit}>
      <b>
        {used} / {limit}
      </b>
      <span>renders {p.label}</span>
    </div>
  );
}

export default function KeyUsage({ data, nonce }: PageProps<KeyUsageData>) {
  const u = data.usage;
  return (
    <Shell {...data.frame} section="usage" nonce={nonce}>
      <div class="page-head">
        <h1>Usage · {data.label}</h1>
        <div class="actions">
          <a class="button" href={`/settings/usage/${u.keyId}?format=csv`}>Export CSV</a>
          <a class="button" href={`/settings/usage/${u.keyId}?format=json`}>Export JSON</a>
        </div>
      </div>
      <p class="muted">
        keyId <code>{u.keyId}</code> · last used <When ms={u.lastUsedAt} />
      </p>
      <div class="stats" id="usage-stats">
        <div class="stat" data-stat="mints-ok">
          <b>{u.mintsOk}</b>
          <span>mints ok</span>
        </div>
        <div class="stat" data-stat="mints-denied">
          <b>{u.mintsDenied}</b>
          <span>mints denied</span>
        </div>
        <div class="stat" data-stat="renders">
          <b>{u.renders}</b>
          <span>renders</span>
        </div>
        <div class="stat" data-stat="renders-denied">
          <b>{u.rendersDenied}</b>
          <span>renders refused</span>
        </div>
        <div class="stat" data-stat="budget-exhausted">
          <b>{u.budgetExhausted}</b>
          <span>budget exhausted</span>
        </div>
        <div class="stat" data-stat="quota-exceeded">
          <b>{u.quotaExceeded}</b>
          <span>quota exceeded</span>
        </div>
        <div class="stat" data-stat="cache-hit-ratio">
          <b>{percent(u.cacheHitRatio)}</b>
          <span>cache hit ratio</span>
        </div>
      </div>
      <section class="card" id="render-quota" data-source={data.quota.source}>
        <h2>Render quota (UTC)</h2>
        <div class="stats">
          <QuotaStat id="quota-day" label="today" period={data.quota.day} />
          <QuotaStat id="quota-month" label="this month" period={data.quota.month} />
        </div>
        <p class="muted">
          {data.quota.source === "quota"
            ? "Renders admitted against the quota (renders refused for capacity or stopped at their deadline are given back)."
            : "No quota is set: renders are unlimited (counts are successful renders)."}{" "}
          <a href={`/settings/keys/${u.keyId}`}>Change the quotas</a>
        </p>
      </section>
      <section class="card">
        <h2>Successful mints by origin</h2>
        {u.mintOrigins.length === 0
          ? <p class="muted">None yet.</p>
          : (
            <ScrollRegion label="Successful mints by origin">
              <table class="list">
                <tbody>
                  {u.mintOrigins.map((o) => (
                    <tr>
                      <td>
                        <code>{o.origin}</code>
                      </td>
                      <td class="num">{o.count}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
      </section>
      <section class="card">
        <h2>Denied mints by reason</h2>
        {u.denials.length === 0
          ? <p class="muted">None.</p>
          : (
            <ScrollRegion label="Denied mints by reason">
              <table class="list" id="denials">
                <thead>
                  <tr>
                    <th>Reason</th>
                    <th>Origin</th>
                    <th class="num">Count</th>
                  </tr>
                </thead>
                <tbody>
                  {u.denials.map((d) => (
                    <tr>
                      <td>
                        <a href={`/problems/${d.reason}`}>
                          <code>{d.reason}</code>
                        </a>
                      </td>
                      <td>
                        <code>{d.origin}</code>
                      </td>
                      <td class="num">{d.count}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
      </section>
      <section class="card">
        <h2>By day</h2>
        <ScrollRegion label="By day">
          <table class="list">
            <thead>
              <tr>
                <th>Day</th>
                <th>Kind</th>
                <th>Outcome</th>
                <th>Origin / cache</th>
                <th class="num">Count</th>
              </tr>
            </thead>
            <tbody>
              {u.rows.map((r) => (
                <tr>
                  <td>{r.day}</td>
                  <td>{r.kind}</td>
                  <td>{r.outcome}</td>
                  <td>
                    <code>{r.detail}</code>
                  </td>
                  <td class="num">{r.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </section>
    </Shell>
  );
}
