/**
 * GET /configurator/<project>?key=<keyId> — the hosted configurator, for an iframe on a partner
 * page. Server-rendered, the Configurator island hydrated. Framable only by the key's allowed
 * origins (CSP `frame-ancestors`); an unknown or revoked key, or a project the key may not show,
 * gets an HTML error page with the problem code. Tokens: docs/embedding.md.
 */
import { configuratorPageCheck } from "@/lib/hub/configurator_mint.ts";
import { configuratorErrorPage, HOSTED_CONFIGURATOR_CSS } from "@/lib/sdk/configurator_page.ts";
import { islandPage } from "@/lib/web/islands_page.ts";
import { type Handlers, hubDeps } from "@/lib/app/context.ts";
import { problemHeaders, toAppError } from "@/lib/http/problem.ts";
import Configurator from "@/islands/Configurator.tsx";

export const config = { roles: ["hub" as const] };

export const handler: Handlers = {
  async GET(ctx) {
    const project = ctx.req.param("project") ?? "";
    const keyId = ctx.req.query("key") ?? "";
    let check;
    try {
      check = await configuratorPageCheck(hubDeps(ctx).keys, ctx.var.deps.kv, keyId, project);
    } catch (err) {
      const e = toAppError(err);
      ctx.set("problemCode", e.code);
      const res = configuratorErrorPage(
        e.status,
        e.code,
        "This configurator cannot be shown",
        e.message,
      );
      // An HTML answer to a problem carries the problem's headers (a 401's challenge).
      for (const [name, value] of problemHeaders(e)) res.headers.set(name, value);
      return res;
    }
    const origin = new URL(ctx.req.url).origin;
    // A separate render service (ROLE=kernel elsewhere) is configured as KERNEL_URL.
    const { kernelUrl, publicUrl } = ctx.var.deps.config;
    const separateKernel = new URL(kernelUrl).origin !== new URL(publicUrl).origin;
    const baseUrl = separateKernel ? new URL(kernelUrl).origin : origin;
    return await islandPage(ctx, {
      title: `${check.title} · Configurator`,
      description:
        `Configure ${check.title} in 3D: change its dimensions and options and see the ` +
        "model update.",
      css: HOSTED_CONFIGURATOR_CSS,
      frameAncestors: check.allowedOrigins,
      connectSrc: separateKernel ? [baseUrl] : [],
      body: (islands) =>
        islands.island("Configurator", Configurator, {
          keyId,
          projectKey: project,
          hubBaseUrl: origin,
          baseUrl,
          hosted: { allowedOrigins: check.allowedOrigins },
          title: check.title,
          schema: check.schema ?? undefined,
        }),
    });
  },
};
