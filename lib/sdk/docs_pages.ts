/**
 * The repository's `docs/*.md` served as pages (`/docs`, `/docs/<name>`), so a partner on a fresh
 * clone reads them in the browser next to the demo. Names come from listing the folder (never from
 * joining a request path onto it), and links between docs point at their pages; a link to a file
 * outside docs/ (`../lib/…`) renders as its text.
 */
import type { VNode } from "preact";
import { renderMarkdown } from "../web/markdown.ts";

/** Where the docs live. */
export const DOCS_DIR = new URL("../../docs/", import.meta.url);

/** One doc: its page name, its title (the first heading) and its first paragraph. */
export interface DocEntry {
  name: string;
  title: string;
  summary: string;
}

const NAME = /^[a-z0-9_-]+$/;

/** Outlines made so far, by file URL, with the size and modification time they were made from. */
const outlines = new Map<string, { size: number; mtime: number | undefined; entry: DocEntry }>();

/**
 * Every doc in `dir`, by name. A doc's outline is made once and made again only when its file's
 * size or modification time changes: the home page lists the docs on every request, and reading
 * and scanning them all (docs/performance.md alone is some hundreds of KB) took 1.5–1.8 ms of it.
 *
 * @example
 * ```ts
 * (await listDocs()).map((d) => d.name); // ["api", "dag", …]
 * ```
 */
export async function listDocs(dir: URL = DOCS_DIR): Promise<DocEntry[]> {
  const out: DocEntry[] = [];
  for await (const e of Deno.readDir(dir)) {
    const name = e.name.replace(/\.md$/, "");
    if (!e.isFile || !e.name.endsWith(".md") || !NAME.test(name)) continue;
    const url = new URL(e.name, dir);
    const { size, mtime } = await Deno.stat(url);
    const known = outlines.get(url.href);
    if (known && known.size === size && known.mtime === mtime?.getTime()) {
      out.push(known.entry);
      continue;
    }
    const entry = { name, ...outline(await Deno.readTextFile(url), name) };
    outlines.set(url.href, { size, mtime: mtime?.getTime(), entry });
    out.push(entry);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The doc `name` rendered, or null when there is no such doc. */
export async function readDoc(
  name: string,
  dir: URL = DOCS_DIR,
): Promise<{ entry: DocEntry; body: VNode[] } | null> {
  const entry = (await listDocs(dir)).find((d) => d.name === name);
  if (!entry) return null;
  const text = await Deno.readTextFile(new URL(`${entry.name}.md`, dir));
  return { entry, body: renderMarkdown(text, { link: docLink }) };
}

/** Where a link inside a doc points: another doc's page, an anchor, or the web; else nowhere. */
export function docLink(href: string): string | null {
  if (/^https?:\/\/[^\s]+$/.test(href)) return href;
  if (/^#[\w-]+$/.test(href)) return href;
  const doc = /^(?:\.\/)?([a-z0-9_-]+)\.md(#[\w-]+)?$/.exec(href);
  return doc ? `/docs/${doc[1]}${doc[2] ?? ""}` : null;
}

/** A doc's title (first heading) and its first paragraph as plain text. */
function outline(text: string, name: string): { title: string; summary: string } {
  const lines = text.split("\n");
  const heading = lines.find((l) => l.startsWith("# "))?.slice(2).trim();
  const title = heading?.replace(/`([^`]*)`/g, "$1") ?? name;
  let fenced = false;
  const start = lines.findIndex((l) => {
    if (l.startsWith("```")) return (fenced = !fenced) && false;
    return !fenced && /^[\p{L}*_`\[]/u.test(l);
  });
  const para: string[] = [];
  for (let i = start; i >= 0 && i < lines.length && lines[i].trim(); i++) {
    para.push(lines[i].trim());
  }
  const summary = para.join(" ").replace(/`([^`]*)`/g, "$1").replace(/\*\*?([^*]+)\*\*?/g, "$1")
    .replace(/(?<!\w)_([^_]+)_(?!\w)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
  return { title, summary: summary.length > 220 ? summary.slice(0, 217) + "…" : summary };
}
