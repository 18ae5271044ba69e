/** GET /settings/usage — per-key usage of the partner's keys (figures from lib/hub/usage.ts). */
import { percent, ScrollRegion, Shell, When } from "@/components/settings/Shell.tsx";
import { type SettingsFrame, settingsFrame } from "@/lib/app/settings_session.ts";
import { listSdkKeys } from "@/lib/hub/sdk_keys.ts";
import { type UsageSummary, usageSummary } from "@/lib/hub/usage.ts";
import { type Handlers, page, type PageProps } from "@/lib/app/context.ts";

interface UsageData {
  frame: SettingsFrame;
  keys: Array<{ keyId: string; label: string; revoked: boolean; usage: UsageSummary }>;
}

export const handler: Handlers = {
  async GET(ctx) {
    const { kv } = ctx.var.deps;
    await ctx.var.deps.usage?.flush();
    const frame = await settingsFrame(ctx);
    const keys = await Promise.all(
      (await listSdkKeys(kv, frame.account.partnerId)).map(async (k) => ({
        keyId: k.keyId,
        label: k.label,
        revoked: k.revoked,
        usage: await usageSummary(kv, k.keyId),
      })),
    );
    return page<UsageData>({ frame, keys }, "Usage");
  },
};

export default function Usage({ data, nonce }: PageProps<UsageData>) {
  return (
    <Shell {...data.frame} section="usage" nonce={nonce}>
      <h1>Usage</h1>
      <section class="card">
        {data.keys.length === 0
          ? <p class="muted">No keys yet.</p>
          : (
            <ScrollRegion label="Usage by key">
              <table class="list" id="usage">
                <thead>
                  <tr>
                    <th>Key</th>
                    <th class="num">Mints ok</th>
                    <th class="num">Mints denied</th>
                    <th class="num">Renders</th>
                    <th class="num">Budget exhausted</th>
                    <th class="num">Cache hits</th>
                    <th>Last used</th>
                  </tr>
                </thead>
                <tbody>
                  {data.keys.map((k) => (
                    <tr data-key-id={k.keyId}>
                      <td>
                        <a href={`/settings/usage/${k.keyId}`}>{k.label}</a>
                        {k.revoked ? <span class="badge revoked">revoked</span> : null}
                      </td>
                      <td class="num">{k.usage.mintsOk}</td>
                      <td class="num">{k.usage.mintsDenied}</td>
                      <td class="num">{k.usage.renders}</td>
                      <td class="num">{k.usage.budgetExhausted}</td>
                      <td class="num">{percent(k.usage.cacheHitRatio)}</td>
                      <td>
                        <When ms={k.usage.lastUsedAt} />
                      </td>
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
