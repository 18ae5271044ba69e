/**
 * `GET /sdk/v1/types/<hash>/<path>.d.ts`: the declarations of the SDK modules (types_build.ts),
 * named by the `X-TypeScript-Types` header of `/sdk/v1/embed.js` and `/sdk/v1/preact.js`. The
 * hash is the current island build's: the files never change under it (immutable coded assets,
 * lib/http/coded_asset.ts), and an older hash answers 404 `not_found`. Readable from any origin,
 * like the modules.
 */
import type { Context } from "hono";
import { assetRequest, assetResponse, cachedAsset, CodedAsset } from "../http/coded_asset.ts";
import { AppError } from "../http/problem.ts";
import { islandBuildOf } from "../web/islands_build.ts";
import { PUBLIC_MODULE_CORS } from "./bundle_route.ts";
import { sdkTypes } from "./types_build.ts";

const PATH = /^([0-9a-f]{16})\/((?:[A-Za-z0-9_-]+\/)*[A-Za-z0-9_.-]+\.d\.ts)$/;

/** The declaration file at `path` (`<hash>/<file>.d.ts`). */
export async function sdkTypesResponse(ctx: Context, path: string): Promise<Response> {
  const m = PATH.exec(path);
  if (!m || m[2].split("/").some((s) => s.startsWith("."))) {
    throw new AppError("not_found", "SDK declarations are at /sdk/v1/types/<hash>/<file>.d.ts.");
  }
  const build = await islandBuildOf(ctx);
  if (m[1] !== build.inputHash) {
    throw new AppError(
      "not_found",
      "These SDK declarations belong to another build; follow X-TypeScript-Types again.",
    );
  }
  const dir = await sdkTypes(build.inputHash);
  const file = `${dir}/${m[2]}`;
  const asset = await cachedAsset(`types:${file}`, build.inputHash, async () => {
    const bytes = await Deno.readFile(file).catch(() => {
      throw new AppError("not_found", `${m[2]} is not part of the SDK's declarations.`);
    });
    return CodedAsset.of(bytes, "application/typescript; charset=utf-8");
  });
  return await assetResponse(asset, assetRequest(ctx.req.raw), {
    cacheControl: "public, max-age=31536000, immutable",
    headers: PUBLIC_MODULE_CORS,
  });
}
