/**
 * The embed's early requests (lib/sdk/early_requests.ts) are the very requests the element's
 * clients send first: against the real app, a `SessionClient` and a `ProjectLoader` made from the
 * element's attributes, as the element makes them, adopt the early answers (their own `fetch`
 * would fail the test if called). Elements on the server flow, without a key or a project, start
 * nothing.
 */
import assert from "node:assert/strict";
import { startEarlyRequests } from "@/lib/sdk/early_requests.ts";
import { embedClientAttributes } from "@/lib/sdk/embed_attributes.ts";
import { prefetchedFetch } from "@/lib/client/prefetch.ts";
import { SessionClient } from "@/lib/client/session_client.ts";
import { ProjectLoader } from "@/lib/client/project_loader.ts";
import { publishFixture } from "../_helpers/projects.ts";
import { createKeyFixture, startTestServer } from "../_helpers/server.ts";

/** An element as the early requests read it: its attributes. */
function element(attributes: Record<string, string>): Element {
  return { getAttribute: (name: string) => attributes[name] ?? null } as unknown as Element;
}

/** A page holding `elements`. */
function page(elements: Element[]): Pick<ParentNode, "querySelectorAll"> {
  return {
    querySelectorAll: (selector: string) => {
      assert.equal(selector, "cad-configurator");
      return elements as unknown as NodeListOf<Element>;
    },
  } as Pick<ParentNode, "querySelectorAll">;
}

/** The network must not be asked: every request was answered early. */
const noNetwork = ((input: RequestInfo | URL) => {
  throw new Error(`sent again: ${String(input)}`);
}) as typeof fetch;

Deno.test("early requests - the element's clients adopt both answers; no request is sent twice", async () => {
  const server = await startTestServer();
  try {
    const key = await createKeyFixture(server.deps.kv);
    await publishFixture(server.deps.kv, key.partnerId, key.project);
    // The script's origin is the hub's (no hub-url); the kernel is the hub (no kernel-url).
    const el = element({ "key-id": key.keyId, project: key.project });
    const sent: string[] = [];
    // A browser's fetch: the page's Origin goes with every request (Deno's fetch adds none).
    const browser = ((input: RequestInfo | URL, init: RequestInit = {}) => {
      sent.push(String(input));
      const headers = new Headers(init.headers);
      headers.set("origin", key.origin);
      return fetch(input, { ...init, headers });
    }) as typeof fetch;
    assert.equal(startEarlyRequests(page([el]), server.url, browser), 1);
    assert.equal(sent.length, 2);

    const attributes = embedClientAttributes(el, server.url);
    const session = new SessionClient({
      keyId: attributes.keyId!,
      projectKey: attributes.projectKey,
      hubBaseUrl: attributes.hubBaseUrl,
      fetch: prefetchedFetch(noNetwork),
    });
    const loader = new ProjectLoader({
      baseUrl: attributes.baseUrl,
      fetch: prefetchedFetch(noNetwork),
    });
    try {
      const token = await session.getToken();
      assert.match(token, /^sv1\./);
      const project = await loader.load(attributes.projectKey, undefined, session.projectScope);
      assert.equal(project.slug, key.project);
      assert.equal(sent.length, 2, "nothing sent after the early requests");
    } finally {
      session.dispose();
    }
  } finally {
    await server.close();
  }
});

Deno.test("early requests - server flow, no key or no project: nothing starts early", () => {
  const sent: string[] = [];
  const send = ((input: RequestInfo | URL) => {
    sent.push(String(input));
    return Promise.resolve(new Response("{}"));
  }) as typeof fetch;
  const started = startEarlyRequests(
    page([
      element({ "session-token": "sv1.a.b", project: "p" }),
      element({ "key-id": "k", "session-token": "sv1.a.b", project: "p" }),
      element({ project: "p" }),
      element({ "key-id": "k" }),
    ]),
    "https://hub.test",
    send,
  );
  assert.equal(started, 0);
  assert.deepEqual(sent, []);
});

Deno.test("early requests - hub-url and kernel-url name where each request goes", () => {
  const attributes = embedClientAttributes(
    element({
      "key-id": "k",
      project: "p",
      "hub-url": "https://hub.test/",
      "kernel-url": "https://kernel.test",
    }),
    "https://script.test",
  );
  assert.deepEqual(attributes, {
    keyId: "k",
    sessionToken: undefined,
    projectKey: "p",
    hubBaseUrl: "https://hub.test/",
    baseUrl: "https://kernel.test",
  });
  assert.equal(
    embedClientAttributes(element({ project: "p" }), "https://script.test").baseUrl,
    "https://script.test",
    "without either, both are where the script came from",
  );
});
