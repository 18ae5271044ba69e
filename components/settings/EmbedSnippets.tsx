/**
 * The embed snippets of a project for one key (lib/hub/embed_snippets.ts): iframe, custom
 * element, React from npm (browser flow), and the server flow, where the partner's backend mints
 * with its secret and hands the token to the page. The key-created page links here
 * (`/settings/projects/<slug>?key=<keyId>#embed`).
 */
import {
  customElementSnippet,
  iframeSnippet,
  reactSnippet,
  SDK_PACKAGE,
  serverFlowEmbedSnippet,
  type SnippetTarget,
} from "@/lib/hub/embed_snippets.ts";
import { Snippet } from "./Shell.tsx";

/** Every embed of `target`'s project, each with a line on when to use it. */
export function EmbedSnippets({ target }: { target: SnippetTarget }) {
  return (
    <div class="embed-snippets">
      <p>
        Browser flow: the page's origin is the proof, so these need only the publishable keyId. Add
        each site that shows the configurator to the key's allowed origins.
      </p>
      <h3>iframe</h3>
      <p class="muted">No build step; the hosted page mints its own tokens.</p>
      <Snippet id="embed-iframe" title="HTML" code={iframeSnippet(target)} />
      <h3>Custom element</h3>
      <p class="muted">
        <code>&lt;cad-configurator&gt;</code> in your page, styled apart in a shadow root.
      </p>
      <Snippet id="embed-element" title="HTML" code={customElementSnippet(target)} />
      <h3>React (npm)</h3>
      <p class="muted">
        <code>{SDK_PACKAGE}/react</code> exports <code>Configurator</code>,{" "}
        <code>ConfiguratorProvider</code>, <code>Viewer</code> and <code>ParameterForm</code>.
      </p>
      <Snippet id="embed-react" title="JSX" code={reactSnippet(target)} />
      <h3>Server flow</h3>
      <p class="muted">
        Your backend mints with the secret key (shown once when the key was created or rolled) for
        {" "}
        <code>{target.origin}</code>{" "}
        and hands the token to the page; when it expires, the page asks your backend again.
      </p>
      <Snippet id="embed-server" title="Server + React" code={serverFlowEmbedSnippet(target)} />
    </div>
  );
}
