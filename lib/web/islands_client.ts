/**
 * The island layer, browser side: reads the boot data the server wrote (`islands.ts`), finds each
 * island's comment markers, loads the island's module and renders it into the marked range.
 *
 * Preact renders into a DOM parent; an island's range is part of a parent it does not own, so it
 * gets a stand-in parent that confines Preact's reads and inserts to the nodes between its two
 * markers (the technique Fresh 1.x used).
 *
 * Runs in browsers: no Deno APIs here.
 */
import { type ComponentType, h, render } from "preact";
import type { IslandBootData } from "./islands.ts";
import { runEffectsInTasks } from "./effect_scheduling.ts";

const START = /^island:([A-Za-z0-9_]+):(\d+)$/;

/** A stand-in parent for the nodes between `start` and `end`. */
export function rangeRoot(start: Comment, end: Comment): Element {
  const parent = start.parentNode as Element;
  const inRange = (node: Node | null): boolean => {
    for (let n = start.nextSibling; n && n !== end; n = n.nextSibling) if (n === node) return true;
    return false;
  };
  const root = {
    nodeType: 1,
    parentNode: parent,
    ownerDocument: parent.ownerDocument,
    namespaceURI: parent.namespaceURI,
    localName: parent.localName,
    nodeName: parent.nodeName,
    get firstChild() {
      const n = start.nextSibling;
      return n === end ? null : n;
    },
    get childNodes() {
      const nodes: Node[] = [];
      for (let n = start.nextSibling; n && n !== end; n = n.nextSibling) nodes.push(n);
      return nodes;
    },
    insertBefore(node: Node, ref: Node | null) {
      return parent.insertBefore(node, ref && inRange(ref) ? ref : end);
    },
    appendChild(node: Node) {
      return parent.insertBefore(node, end);
    },
    removeChild(node: Node) {
      return parent.removeChild(node);
    },
    contains(node: Node | null) {
      return inRange(node);
    },
  };
  return root as unknown as Element;
}

/** Renders every island of `doc` whose data is in its boot script. */
export async function bootIslands(doc: Document = document): Promise<void> {
  const script = doc.getElementById("__islands");
  if (!script?.textContent) return;
  const data = JSON.parse(script.textContent) as IslandBootData;
  const byId = new Map(data.islands.map((e) => [String(e.id), e]));
  const starts: Array<{ start: Comment; name: string; id: string }> = [];
  const ends = new Map<string, Comment>();
  const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_COMMENT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n as Comment).data;
    const m = START.exec(text);
    if (m) starts.push({ start: n as Comment, name: m[1], id: m[2] });
    else if (text.startsWith("/island:")) ends.set(text.slice(8), n as Comment);
  }
  await Promise.all(starts.map(async ({ start, name, id }) => {
    const entry = byId.get(id);
    const end = ends.get(id);
    const url = data.modules[name];
    if (!entry || !end || !url) return;
    const mod = await import(url) as { default: ComponentType<Record<string, unknown>> };
    render(h(mod.default, entry.props), rangeRoot(start, end));
  }));
  doc.documentElement.dataset.islands = "ready";
}

// Our pages' islands run their effects without asking for frames (effect_scheduling.ts).
runEffectsInTasks();
bootIslands().catch((err) => {
  console.error("island boot failed", err);
  document.documentElement.dataset.islands = "error";
});
