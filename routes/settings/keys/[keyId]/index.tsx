/**
 * GET /settings/keys/<keyId> — one key: settings form, "test an origin", snippets, roll and
 * revoke; POST — save the settings.
 */
import { KeyForm, keyFormValues } from "@/components/settings/KeyForm.tsx";
import {
  CsrfField,
  fieldError,
  Notice,
  Shell,
  Snippet,
  When,
} from "@/components/settings/Shell.tsx";
import { ownKey, partnerProjects } from "@/lib/auth/ownership.ts";
import {
  readForm,
  type SettingsFrame,
  settingsFrame,
  siteBaseUrl,
} from "@/lib/app/settings_session.ts";
import { formError } from "@/lib/app/sign_in_flow.ts";
import type { AppError } from "@/lib/http/problem.ts";
import { explainOriginMatch, type OriginMatchExplanation } from "@/lib/http/origin_match.ts";
import { appendAudit } from "@/lib/hub/audit.ts";
import { browserFlowSnippet, serverFlowCurl } from "@/lib/hub/embed_snippets.ts";
import { formValuesOf, keyInputFromForm, type SdkKeyFormValues } from "@/lib/hub/sdk_key_form.ts";
import {
  editSdkKey,
  graceUntil,
  MAX_ROLL_GRACE_S,
  type SdkKeyView,
  viewSdkKey,
} from "@/lib/hub/sdk_keys.ts";
import {
  type Handlers,
  hubDeps,
  page,
  type PageProps,
  type RouteContext,
} from "@/lib/app/context.ts";

interface KeyData {
  frame: SettingsFrame;
  key: SdkKeyView;
  graceUntil: number | null;
  values: SdkKeyFormValues;
  projects: Array<{ slug: string; title: string }>;
  baseUrl: string;
  test?: { input: string; result: OriginMatchExplanation };
  error?: string;
  errorCode?: string;
  notice?: string;
}

async function load(ctx: RouteContext, extra: Partial<KeyData> = {}): Promise<KeyData> {
  const { kv, clock } = ctx.var.deps;
  const frame = await settingsFrame(ctx);
  const record = await ownKey(kv, ctx.get("account")!, ctx.req.param("keyId") ?? "");
  const key = viewSdkKey(record);
  return {
    frame,
    key,
    graceUntil: graceUntil(record, clock()),
    values: formValuesOf(key),
    projects: await partnerProjects(kv, frame.account.partnerId),
    baseUrl: siteBaseUrl(ctx),
    ...extra,
  };
}

export const handler: Handlers = {
  async GET(ctx) {
    const data = await load(ctx);
    const test = ctx.req.query("test");
    if (test !== undefined) {
      data.test = {
        input: test.slice(0, 2048),
        result: explainOriginMatch(test.slice(0, 2048), data.key.allowedOrigins),
      };
    }
    const done = ctx.req.query("done");
    if (done === "saved") data.notice = "Saved.";
    return page(data, data.key.label);
  },
  async POST(ctx) {
    const { kv, clock } = ctx.var.deps;
    const data = await load(ctx);
    const values = keyFormValues(await readForm(ctx));
    try {
      const before = data.key;
      const record = await editSdkKey(
        kv,
        before.keyId,
        // A form without the rate fields keeps the key's policies.
        {
          rateLimit: before.rateLimit,
          clientIpRateLimit: before.clientIpRateLimit,
          ...keyInputFromForm(data.frame.account.partnerId, values),
        },
        clock(),
      );
      // The mint path and this process's render quotas share this cache; other nodes see the
      // edit within its 2 s bound.
      hubDeps(ctx).keys.invalidate(before.keyId);
      await appendAudit(kv, {
        partnerId: data.frame.account.partnerId,
        actor: { accountId: data.frame.account.id, email: data.frame.account.email },
        action: "key.edit",
        target: before.keyId,
        details: {
          label: record?.label,
          allowedOrigins: record?.allowedOrigins,
          allowedProjects: record?.allowedProjects,
          defaultTtlSeconds: record?.defaultTtlSeconds,
          maxTtlSeconds: record?.maxTtlSeconds,
          rateLimit: record?.rateLimit,
          clientIpRateLimit: record?.clientIpRateLimit,
          renderQuota: record?.renderQuota,
          budget: record?.budget,
        },
      }, clock());
      return ctx.redirect(`/settings/keys/${before.keyId}?done=saved`, 303);
    } catch (err) {
      const error = formError(err);
      // formError rethrows anything but an AppError below 500: err is one here.
      const errorCode = (err as AppError).code;
      return { ...page({ ...data, values, error, errorCode }, data.key.label), status: 422 };
    }
  },
};

function TestResult({ test }: { test: NonNullable<KeyData["test"]> }) {
  const r = test.result;
  return (
    <div id="origin-test-result" data-matches={String(r.matches)}>
      {r.matches
        ? (
          <p class="result-ok">
            Allowed: a browser on <code>{r.normalized}</code> can mint with this key.
          </p>
        )
        : (
          <>
            <p class="result-no">Not allowed.</p>
            {r.error ? <p class="error" id="origin-test-error">{r.error}</p> : null}
            {r.normalized
              ? (
                <p>
                  A browser there sends the Origin{" "}
                  <code>{r.normalized}</code>, which is not on the list (origins match exactly:
                  scheme, host and port).
                </p>
              )
              : null}
            {r.closest
              ? (
                <p>
                  Closest allowed origin: <code>{r.closest}</code>
                  {r.hint ? ` — ${r.hint}.` : "."}
                </p>
              )
              : null}
          </>
        )}
    </div>
  );
}

export default function KeyPage({ data, nonce }: PageProps<KeyData>) {
  const { key, frame } = data;
  const target = {
    baseUrl: data.baseUrl,
    keyId: key.keyId,
    project: key.allowedProjects[0] ?? "<project>",
    origin: key.allowedOrigins[0] ?? "<origin>",
  };
  return (
    <Shell {...frame} section="keys" nonce={nonce}>
      <div class="page-head">
        <h1>{key.label}</h1>
        {key.revoked
          ? <span class="badge revoked">revoked</span>
          : data.graceUntil
          ? (
            <span class="badge grace">
              old secret valid until <When ms={data.graceUntil} />
            </span>
          )
          : <span class="badge">active</span>}
      </div>
      <Notice text={data.notice} />
      <p class="muted">
        keyId <code>{key.keyId}</code> · created <When ms={key.createdAt} /> · updated{" "}
        <When ms={key.updatedAt} />
        {key.revokedAt
          ? (
            <>
              · revoked <When ms={key.revokedAt} />
            </>
          )
          : null}
      </p>

      <section class="card">
        <h2>Allowed origins</h2>
        <p>Browsers on exactly these origins can mint (no wildcards, no paths):</p>
        <ul id="matched-origins">
          {key.allowedOrigins.map((o) => (
            <li>
              <code>{o}</code>
            </li>
          ))}
        </ul>
        <h3>Test an origin</h3>
        <form method="get" action={`/settings/keys/${key.keyId}`} class="actions">
          <label class="field">
            Origin or page URL
            <input
              type="text"
              name="test"
              placeholder="https://shop.example.com or a page URL"
              value={data.test?.input ?? ""}
              size={40}
              {...fieldError(!!data.test?.result.error, "origin-test-error")}
            />
          </label>
          <button type="submit" class="secondary">Test</button>
        </form>
        {data.test ? <TestResult test={data.test} /> : null}
      </section>

      {key.revoked ? null : (
        <section class="card">
          <h2>Settings</h2>
          <KeyForm
            action={`/settings/keys/${key.keyId}`}
            csrf={frame.csrf}
            values={data.values}
            projects={data.projects}
            submit="Save"
            error={data.error}
            errorCode={data.errorCode}
          />
        </section>
      )}

      <section class="card">
        <h2>Use this key</h2>
        <Snippet
          id="snippet-browser"
          title="Browser flow (keyId only)"
          code={browserFlowSnippet(target)}
        />
        <Snippet
          id="snippet-curl"
          title="Server flow (curl; put your secret in place of <secret>)"
          code={serverFlowCurl(target)}
        />
        <p>
          Embeds for a project: see <a href={`/settings/projects/${target.project}`}>its page</a>.
        </p>
      </section>

      {key.revoked ? null : (
        <>
          <section class="card">
            <h2>Roll the secret</h2>
            <p>
              A new secret replaces the current one; the keyId stays, so browser-flow embeds keep
              working. The old secret keeps working for the grace period you choose, so servers can
              switch over.
            </p>
            <form method="post" action={`/settings/keys/${key.keyId}/roll`} class="actions">
              <CsrfField token={frame.csrf} />
              <label class="field">
                Grace period
                <select name="grace">
                  <option value="0">none — the old secret stops now</option>
                  <option value="900">15 minutes</option>
                  <option value="3600" selected>1 hour</option>
                  <option value="86400">24 hours</option>
                  <option value={String(MAX_ROLL_GRACE_S)}>7 days</option>
                </select>
              </label>
              <button type="submit">Roll secret</button>
            </form>
          </section>
          <section class="card">
            <h2>Revoke</h2>
            <p>
              The key stops minting at once, and every token it minted stops rendering (within 2 s
              on other instances; see docs/settings.md). This cannot be undone.
            </p>
            <form method="post" action={`/settings/keys/${key.keyId}/revoke`}>
              <CsrfField token={frame.csrf} />
              <button type="submit" class="danger">Revoke key</button>
            </form>
          </section>
        </>
      )}
      <p>
        <a href={`/settings/usage/${key.keyId}`}>Usage of this key</a>
      </p>
    </Shell>
  );
}
