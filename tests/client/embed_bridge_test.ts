import assert from "node:assert/strict";
import {
  type BridgeWindow,
  EmbedBridge,
  parseIncoming,
  resolveParentOrigin,
} from "@/lib/client/embed_bridge.ts";

function fakeWindow(opts: { ancestors?: string[]; referrer?: string; top?: boolean }) {
  const sent: Array<{ message: unknown; target: string }> = [];
  const listeners: Array<(e: MessageEvent) => void> = [];
  const parent = {
    postMessage: (message: unknown, target: string) => sent.push({ message, target }),
  };
  const win: BridgeWindow & { fire(e: Partial<MessageEvent>): void } = {
    parent,
    location: {
      ancestorOrigins: opts.ancestors
        ? Object.assign([...opts.ancestors], { length: opts.ancestors.length })
        : undefined,
    },
    document: { referrer: opts.referrer ?? "" },
    addEventListener: (_t, fn) => listeners.push(fn),
    removeEventListener: (_t, fn) => listeners.splice(listeners.indexOf(fn), 1),
    fire: (e) => listeners.forEach((fn) => fn(e as MessageEvent)),
  };
  if (opts.top) win.parent = win;
  return { win, sent, parent, listeners };
}

const SHOP = "https://shop.example.com";

Deno.test("embed bridge - the parent origin must be on the allowlist", () => {
  assert.equal(resolveParentOrigin(fakeWindow({ ancestors: [SHOP] }).win, [SHOP]), SHOP);
  assert.equal(
    resolveParentOrigin(fakeWindow({ referrer: `${SHOP}/p/1?x` }).win, [SHOP]),
    SHOP,
    "document.referrer when ancestorOrigins is missing",
  );
  assert.equal(
    resolveParentOrigin(fakeWindow({ ancestors: ["https://evil.example"] }).win, [SHOP]),
    null,
  );
  assert.equal(
    resolveParentOrigin(fakeWindow({ ancestors: ["https://evil.example"], referrer: SHOP }).win, [
      SHOP,
    ]),
    null,
    "ancestorOrigins wins over a referrer",
  );
  assert.equal(resolveParentOrigin(fakeWindow({ top: true, referrer: SHOP }).win, [SHOP]), null);
});

Deno.test("embed bridge - sends to the exact origin and accepts only the parent's messages", () => {
  const { win, sent, parent, listeners } = fakeWindow({ ancestors: [SHOP] });
  const got: unknown[] = [];
  const bridge = new EmbedBridge(win, SHOP, (m) => got.push(m));
  bridge.send({ type: "cad:change", values: { width: 1 } });
  assert.deepEqual(sent, [{ message: { type: "cad:change", values: { width: 1 } }, target: SHOP }]);
  const msg = { type: "cad:setParameters", values: { width: 90 } };
  win.fire({ origin: "https://evil.example", source: parent as unknown as Window, data: msg });
  win.fire({ origin: SHOP, source: {} as Window, data: msg });
  win.fire({ origin: SHOP, source: parent as unknown as Window, data: { type: "cad:unknown" } });
  assert.deepEqual(got, []);
  win.fire({ origin: SHOP, source: parent as unknown as Window, data: msg });
  assert.deepEqual(got, [msg]);
  bridge.dispose();
  assert.equal(listeners.length, 0);
});

Deno.test("embed bridge - incoming messages are checked for shape", () => {
  const table: Array<[unknown, unknown]> = [
    [null, null],
    ["cad:setParameters", null],
    [{ type: "cad:setParameters", values: [1] }, null],
    [{ type: "cad:getConfiguration", requestId: 5 }, null],
    [{ type: "cad:getConfiguration", requestId: "r1" }, {
      type: "cad:getConfiguration",
      requestId: "r1",
    }],
    [{ type: "cad:setParameters", values: { a: 1 } }, {
      type: "cad:setParameters",
      values: { a: 1 },
    }],
    [{ type: "cad:getShareUrl", requestId: "s1", baseUrl: "https://shop.example/p?x=1" }, {
      type: "cad:getShareUrl",
      requestId: "s1",
      baseUrl: "https://shop.example/p?x=1",
    }],
    [{ type: "cad:getShareUrl", requestId: "s2" }, {
      type: "cad:getShareUrl",
      requestId: "s2",
      baseUrl: undefined,
    }],
    [{ type: "cad:getShareUrl", baseUrl: "javascript:alert(1)" }, null],
    [{ type: "cad:getShareUrl", baseUrl: "/relative" }, null],
    [{ type: "cad:getShareUrl", requestId: 1 }, null],
    [
      { type: "cad:snapshot", requestId: "p1", width: 256, height: 128, background: "transparent" },
      {
        type: "cad:snapshot",
        requestId: "p1",
        width: 256,
        height: 128,
        background: "transparent",
      },
    ],
    [{ type: "cad:snapshot" }, { type: "cad:snapshot", requestId: undefined }],
    [{ type: "cad:snapshot", width: "512" }, null],
    [{ type: "cad:snapshot", background: 0xffffff }, null],
  ];
  for (const [input, want] of table) assert.deepEqual(parseIncoming(input), want);
});
