/**
 * Markdown to Preact nodes, for serving the repository's own docs as pages. Safe by construction:
 * the output is a tree of elements whose text Preact escapes, raw HTML in the source is shown as
 * text, and a link keeps its target only when `options.link` accepts it (others render as their
 * text), so no document can inject markup or a `javascript:` URL.
 *
 * The subset is what the docs use (GitHub's flavour): ATX headings (with GitHub's anchor ids),
 * paragraphs, fenced code, block quotes, rules, nested bullet and ordered lists, pipe tables, and
 * inline code, links, autolinks, `**strong**`, `*emphasis*` and backslash escapes.
 */
import { type ComponentChildren, h, type VNode } from "preact";

/** An element (Preact's `h` typed for plain tags). */
function el(
  tag: string,
  props: Record<string, unknown> | null,
  ...children: ComponentChildren[]
): VNode {
  return h(tag, props, ...children) as VNode;
}

/** How links are resolved. */
export interface MarkdownOptions {
  /** The href to use for a link's target, or null to render the link as plain text. */
  link(href: string): string | null;
}

/**
 * GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens.
 *
 * @example
 * ```ts
 * headingId("Revocation (`lib/store/revocations.ts`)"); // "revocation-libstorerevocationsts"
 * ```
 */
export function headingId(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").trim().replace(/\s/g, "-");
}

/**
 * The document `source` as Preact nodes.
 *
 * @example
 * ```ts
 * renderMarkdown("# Hi\n\nSee [tokens](tokens.md).", { link: (h) => h.replace(/\.md$/, "") });
 * ```
 */
export function renderMarkdown(source: string, options: MarkdownOptions): VNode[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  return blocks(lines, options);
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function blocks(lines: string[], options: MarkdownOptions): VNode[] {
  const out: VNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      const close = new RegExp(`^\\s*${fence[2][0]}{${fence[2].length},}\\s*$`);
      for (i++; i < lines.length && !close.test(lines[i]); i++) body.push(lines[i]);
      i++;
      const lang = fence[3] ? { class: `language-${fence[3]}` } : null;
      // Focusable: a long line scrolls sideways, and a keyboard user can scroll it too.
      out.push(el("pre", { tabindex: "0" }, el("code", lang, body.join("\n"))));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const text = heading[2];
      out.push(el(`h${heading[1].length}`, { id: headingId(text) }, inline(text, options)));
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push(el("hr", null));
      i++;
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])) {
      const head = cells(line);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && lines[i].includes("|") && lines[i].trim(); i++) {
        rows.push(cells(lines[i]));
      }
      out.push(el(
        "div",
        { class: "md-table", tabindex: "0" },
        el(
          "table",
          null,
          el("thead", null, el("tr", null, head.map((c) => el("th", null, inline(c, options))))),
          el(
            "tbody",
            null,
            rows.map((r) =>
              el("tr", null, head.map((_, k) => el("td", null, inline(r[k] ?? "", options))))
            ),
          ),
        ),
      ));
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const quoted: string[] = [];
      for (; i < lines.length && /^\s{0,3}>/.test(lines[i]); i++) {
        quoted.push(lines[i].replace(/^\s{0,3}>\s?/, ""));
      }
      out.push(el("blockquote", null, blocks(quoted, options)));
      continue;
    }
    if (BULLET.test(line)) {
      const end = listEnd(lines, i);
      out.push(list(lines.slice(i, end), options));
      i = end;
      continue;
    }
    const para: string[] = [];
    for (; i < lines.length && !interrupts(lines[i]); i++) para.push(lines[i].trim());
    out.push(el("p", null, inline(para.join("\n"), options)));
  }
  return out;
}

/** Whether `line` ends a paragraph (an ordered list interrupts one only when it starts at 1). */
function interrupts(line: string): boolean {
  if (line.trim() === "" || FENCE.test(line) || HEADING.test(line) || /^\s{0,3}>/.test(line)) {
    return true;
  }
  const item = BULLET.exec(line);
  return item !== null && (/^[-*+]$/.test(item[2]) || /^1[.)]$/.test(item[2]));
}

/** The index after the list starting at `start`: blank lines continue it only before indented or item lines. */
function listEnd(lines: string[], start: number): number {
  let i = start + 1;
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "") {
      const next = lines.slice(i + 1).find((l) => l.trim() !== "");
      if (next === undefined || !(BULLET.test(next) || /^\s{2,}\S/.test(next))) break;
      continue;
    }
    if (BULLET.test(line) || /^\s+\S/.test(line)) continue;
    if (interrupts(line) || RULE.test(line)) break;
  }
  return i;
}

interface Item {
  text: string[];
  children: List[];
}

interface List {
  indent: number;
  ordered: boolean;
  start: number;
  items: Item[];
}

/** A (nested) list from its lines: an item deeper than its list's marker starts a sublist. */
function list(lines: string[], options: MarkdownOptions): VNode {
  const first = BULLET.exec(lines[0])!;
  const root: List = newList(first);
  const stack: List[] = [root];
  for (const line of lines) {
    if (line.trim() === "") continue;
    const m = BULLET.exec(line);
    if (m) {
      const indent = m[1].length;
      while (stack.length > 1 && indent < stack.at(-1)!.indent) stack.pop();
      let top = stack.at(-1)!;
      if (indent > top.indent && top.items.length) {
        const sub = newList(m);
        top.items.at(-1)!.children.push(sub);
        stack.push(sub);
        top = sub;
      }
      top.items.push({ text: [m[3]], children: [] });
    } else {
      const top = stack.at(-1)!;
      const item = top.items.at(-1)!;
      const sub = item.children.at(-1);
      (sub ? sub.items.at(-1)! : item).text.push(line.trim());
    }
  }
  return listNode(root, options);
}

function newList(m: RegExpExecArray): List {
  const ordered = !/^[-*+]$/.test(m[2]);
  return { indent: m[1].length, ordered, start: ordered ? parseInt(m[2], 10) : 1, items: [] };
}

function listNode(l: List, options: MarkdownOptions): VNode {
  const items = l.items.map((it) =>
    el(
      "li",
      null,
      inline(it.text.join("\n"), options),
      it.children.map((c) => listNode(c, options)),
    )
  );
  return l.ordered
    ? el("ol", l.start === 1 ? null : { start: l.start }, items)
    : el("ul", null, items);
}

/** A table row's cells: split on pipes that are not escaped, outer pipes dropped. */
function cells(row: string): string[] {
  const parts = row.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "").split(/(?<!\\)\|/);
  return parts.map((c) => c.trim().replaceAll("\\|", "|"));
}

const INLINE = new RegExp(
  [
    /(`+)([\s\S]*?[^`])\1(?!`)/.source, // 1, 2: code span
    /\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)\s*\)/.source, // 3, 4: link
    /<(https?:\/\/[^\s<>]+)>/.source, // 5: autolink
    /\*\*([\s\S]+?)\*\*/.source, // 6: strong
    /\*(?![\s*])([\s\S]+?)\*|(?<![\p{L}\p{N}_])_(?![\s_])([^_]+?)_(?![\p{L}\p{N}_])/u.source, // 7, 8: emphasis
    /\\([!-\/:-@\[-`{-~])/.source, // 9: escaped punctuation
    /\n/.source, // soft line break
  ].join("|"),
  "u",
);

/** Inline markup of `text` as Preact children. */
function inline(text: string, options: MarkdownOptions): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let rest = text;
  while (rest) {
    const m = INLINE.exec(rest);
    if (!m) {
      out.push(rest);
      break;
    }
    if (m.index > 0) out.push(rest.slice(0, m.index));
    rest = rest.slice(m.index + m[0].length);
    if (m[1] !== undefined) out.push(el("code", null, m[2].replace(/^ (.*) $/, "$1")));
    else if (m[3] !== undefined) {
      const href = options.link(m[4]);
      const label = inline(m[3], options);
      out.push(href === null ? el("span", null, label) : anchor(href, label));
    } else if (m[5] !== undefined) {
      const href = options.link(m[5]);
      out.push(href === null ? m[5] : anchor(href, m[5]));
    } else if (m[6] !== undefined) out.push(el("strong", null, inline(m[6], options)));
    else if (m[7] !== undefined || m[8] !== undefined) {
      out.push(el("em", null, inline(m[7] ?? m[8], options)));
    } else if (m[9] !== undefined) out.push(m[9]);
    else out.push("\n");
  }
  return out;
}

function anchor(href: string, children: ComponentChildren): VNode {
  const external = /^https?:\/\//.test(href);
  return el("a", external ? { href, rel: "noopener noreferrer" } : { href }, children);
}
