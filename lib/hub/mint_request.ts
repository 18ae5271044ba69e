/**
 * The mint request bodies of both flows (spec 4.1), as zod schemas. They are strict: an unknown
 * member (say `projectKey` for `projectId`) is refused rather than silently ignored.
 */
import { z } from "zod";

const id = (what: string) =>
  z.string({ error: `${what} must be a string` }).min(1, `${what} must not be empty`).max(
    256,
    `${what} is too long`,
  );

/** Body of the browser flow: the publishable keyId plus the project. */
export const BrowserMintBody = z.strictObject({
  keyId: id("keyId"),
  projectId: id("projectId"),
  origin: z.string().max(2048).optional(),
  endUserId: id("endUserId").optional(),
  ttlSeconds: z.int().optional(),
});

/** Body of the server flow: the partner's backend binds the token to an origin. */
export const ServerMintBody = z.strictObject({
  projectId: id("projectId"),
  origin: z.string({ error: "origin is required in the server flow" }).min(1).max(2048),
  endUserId: id("endUserId").optional(),
  ttlSeconds: z.int().optional(),
  keyId: id("keyId").optional(),
});

/** The success response of both flows (spec 2.3). */
export const MintResponse = z.object({
  token: z.string().startsWith("sv1."),
  expiresAt: z.int(),
  mode: z.enum(["secret", "publishable"]),
});

/** A parsed browser-flow body. */
export type BrowserMintBody = z.infer<typeof BrowserMintBody>;
/** A parsed server-flow body. */
export type ServerMintBody = z.infer<typeof ServerMintBody>;
/** A mint response body. */
export type MintResponse = z.infer<typeof MintResponse>;
