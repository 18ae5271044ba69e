/**
 * The page that shows a new or rolled key's plaintext, once, with both flows' mint snippets and a
 * link to each allowed project's embed snippets for this key.
 */
import {
  browserFlowSnippet,
  customElementSnippet,
  serverFlowCurl,
  serverFlowFetch,
  type SnippetTarget,
} from "@/lib/hub/embed_snippets.ts";
import { KeyEmbedLinks } from "./KeyEmbedLinks.tsx";
import { Snippet, When } from "./Shell.tsx";

/** Props of the show-once view. */
export interface KeyShownOnceProps {
  plaintext: string;
  target: SnippetTarget;
  rolled?: { graceUntil: number | null };
  /** The key's allowed projects (their embed snippets are linked). */
  projects?: Array<{ slug: string; title: string }>;
}

/** The plaintext key and ready snippets; the page is sent with `Cache-Control: no-store`. */
export function KeyShownOnce(p: KeyShownOnceProps) {
  return (
    <>
      <section class="secret" id="plaintext-key">
        <h2>{p.rolled ? "New secret" : "Your new key"}</h2>
        <p>
          Copy it now: this is the only time the whole key is shown. We keep only a digest of the
          secret.
        </p>
        <div class="actions">
          <code id="key-plaintext">{p.plaintext}</code>
          <button type="button" class="small" data-copy="key-plaintext" hidden>Copy</button>
        </div>
        {p.rolled
          ? (
            <p>
              {p.rolled.graceUntil
                ? (
                  <>
                    The previous secret keeps working until <When ms={p.rolled.graceUntil} />.
                  </>
                )
                : "The previous secret stopped working now."} The keyId{" "}
              <code>{p.target.keyId}</code> is unchanged, so browser-flow embeds need no change.
            </p>
          )
          : null}
      </section>
      {p.target.project && !p.rolled
        ? (
          <section class="card" id="embed-now">
            <h2>Put it on your page</h2>
            <p>
              Paste this where the configurator of <code>{p.target.project}</code>{" "}
              should appear, on a page of <code>{p.target.origin}</code>:
            </p>
            <Snippet
              id="snippet-element"
              title="HTML (custom element)"
              code={customElementSnippet(p.target)}
            />
          </section>
        )
        : null}
      <KeyEmbedLinks keyId={p.target.keyId} projects={p.projects ?? []} />
      <section class="card">
        <h2>Browser flow</h2>
        <p>
          Pages on an allowed origin mint with the publishable keyId alone; the browser's Origin
          header is the proof.
        </p>
        <Snippet
          id="snippet-browser"
          title="JavaScript (in the page)"
          code={browserFlowSnippet(p.target)}
        />
        <h2>Server flow</h2>
        <p>Your server mints with the secret key and hands the token to the page.</p>
        <Snippet id="snippet-curl" title="curl" code={serverFlowCurl(p.target)} />
        <Snippet
          id="snippet-fetch"
          title="fetch (Node, Deno, Bun)"
          code={serverFlowFetch(p.target)}
        />
      </section>
    </>
  );
}
