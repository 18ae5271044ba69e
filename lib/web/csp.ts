/**
 * Content-Security-Policy as data: a policy is a table of directives and their sources, written in
 * order; the page's nonce and who may frame it are options, so every HTML answer of the framework
 * (lib/web/document.ts) builds its header the same way and a page kind's policy reads as one
 * table. The tables of the framework's own page kinds are here; an app adds its own (the hosted
 * configurator's error page, lib/sdk/configurator_page.ts).
 */

/** A CSP as data: directive name → its sources, in the order they are written. */
export type CspDirectives = Readonly<Record<string, readonly string[]>>;

/** Stands for the document's nonce in a directive's sources (`'nonce-<hex>'` once built). */
export const NONCE = "'nonce'";

/** What varies per document besides its directives. */
export interface CspOptions {
  /** The document's nonce, put where the directives say `NONCE` (required if they do). */
  nonce?: string;
  /**
   * Origins that may frame the document: the `frame-ancestors` directive, `'none'` when empty.
   * Absent: no `frame-ancestors` at all (any page may frame it).
   */
  frameAncestors?: readonly string[];
}

/**
 * A page of the framework: its own files plus inline scripts and styles under the nonce, no
 * plugins, forms posting back to the site.
 */
export const PAGE_DIRECTIVES: CspDirectives = {
  "default-src": ["'self'"],
  "script-src": ["'self'", NONCE],
  "style-src": ["'self'", NONCE],
  "img-src": ["'self'", "data:"],
  "connect-src": ["'self'"],
  "base-uri": ["'none'"],
  "form-action": ["'self'"],
  "object-src": ["'none'"],
};

/**
 * An island page (lib/web/islands_page.ts): a page whose islands may also show `blob:` images
 * (made in the browser), compile WebAssembly (`'wasm-unsafe-eval'`: the render client's meshopt
 * decoder; it allows no JavaScript `eval`) and which submits no form.
 */
export const ISLAND_PAGE_DIRECTIVES: CspDirectives = {
  ...PAGE_DIRECTIVES,
  "script-src": [...PAGE_DIRECTIVES["script-src"], "'wasm-unsafe-eval'"],
  "img-src": [...PAGE_DIRECTIVES["img-src"], "blob:"],
  "form-action": ["'none'"],
};

/** A fresh nonce: 128 random bits as 32 hex digits. */
export function newNonce(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/**
 * The header value of `directives` with `options` applied.
 *
 * @example
 * ```ts
 * contentSecurityPolicy(PAGE_DIRECTIVES, { nonce, frameAncestors: [] });
 * // "default-src 'self'; script-src 'self' 'nonce-…'; … ; frame-ancestors 'none'"
 * ```
 */
export function contentSecurityPolicy(directives: CspDirectives, options: CspOptions = {}): string {
  const entries = Object.entries(directives);
  if (options.frameAncestors) {
    if ("frame-ancestors" in directives) {
      throw new TypeError("frame-ancestors is an option, not a directive of the table");
    }
    const ancestors = options.frameAncestors;
    entries.push(["frame-ancestors", ancestors.length ? ancestors : ["'none'"]]);
  }
  return entries.map(([name, sources]) => {
    const values = sources.map((source) => {
      if (source !== NONCE) return source;
      if (!options.nonce) throw new TypeError(`${name} names the nonce but none was given`);
      return `'nonce-${options.nonce}'`;
    });
    return [name, ...values].join(" ");
  }).join("; ");
}
