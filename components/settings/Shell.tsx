/** The frame of every settings page: top bar with the partner, section navigation, sign-out. */
import type { ComponentChildren } from "preact";
import type { Account } from "@/lib/store/accounts.ts";

const SECTIONS = [
  ["keys", "SDK API keys", "/settings/keys"],
  ["projects", "Projects", "/settings/projects"],
  ["usage", "Usage", "/settings/usage"],
  ["audit", "Audit log", "/settings/audit"],
  ["members", "Members", "/settings/members"],
] as const;

/** Props of the settings frame. */
export interface ShellProps {
  account: Pick<Account, "email" | "role">;
  partnerName: string;
  csrf: string;
  section: (typeof SECTIONS)[number][0];
  nonce: string;
  children: ComponentChildren;
}

/** Copies the text of `data-copy`'s target; without JavaScript the text stays selectable. */
const COPY_SCRIPT = `for (const b of document.querySelectorAll("button[data-copy]")) {
  b.hidden = false;
  b.addEventListener("click", async () => {
    const t = document.getElementById(b.dataset.copy);
    try { await navigator.clipboard.writeText(t.textContent); b.textContent = "Copied"; }
    catch { const r = document.createRange(); r.selectNodeContents(t);
      const s = getSelection(); s.removeAllRanges(); s.addRange(r); b.textContent = "Selected — press Ctrl+C"; }
    setTimeout(() => (b.textContent = "Copy"), 2000);
  });
}`;

/** The settings frame. */
export function Shell(props: ShellProps) {
  return (
    <div class="settings">
      <link rel="stylesheet" href="/settings.css" />
      <a class="skip" href="#content">Skip to content</a>
      <header class="topbar">
        <a class="brand" href="/settings/keys">CAD Configurator</a>
        <span class="partner">{props.partnerName}</span>
        <span class="who">
          {props.account.email} · {props.account.role}
        </span>
        <form method="post" action="/auth/signout" class="inline">
          <input type="hidden" name="_csrf" value={props.csrf} />
          <button type="submit" class="link">Sign out</button>
        </form>
      </header>
      <div class="layout">
        <nav class="sidenav" aria-label="Settings">
          {SECTIONS.map(([id, label, href]) => (
            <a href={href} aria-current={id === props.section ? "page" : undefined}>{label}</a>
          ))}
        </nav>
        <main class="content" id="content" tabIndex={-1}>{props.children}</main>
      </div>
      <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: COPY_SCRIPT }} />
    </div>
  );
}

/** The hidden synchronizer-token field every settings form carries. */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

/** The id of a form's error message, which its fields name in `aria-describedby`. */
export const FORM_ERROR_ID = "form-error";

/** A form-level error message (or nothing), announced on load; fields point at its `id`. */
export function ErrorBox({ error, id = FORM_ERROR_ID }: { error?: string | null; id?: string }) {
  return error ? <p class="error" role="alert" id={id}>{error}</p> : null;
}

/**
 * The ARIA attributes of a field a form error is about: `aria-invalid` and `aria-describedby`
 * naming the error message (`errorId`); nothing when the error is about another field.
 */
export function fieldError(
  inError: boolean,
  errorId: string = FORM_ERROR_ID,
): { "aria-invalid"?: "true"; "aria-describedby"?: string } {
  return inError ? { "aria-invalid": "true", "aria-describedby": errorId } : {};
}

/** A required file input of an upload form, labelled by the file it wants; tied to the form's error. */
export function FileField(
  p: { file: string; name: string; accept: string; inError: boolean; errorId: string },
) {
  return (
    <label>
      {p.file}
      <input
        type="file"
        name={p.name}
        accept={p.accept}
        required
        {...fieldError(p.inError, p.errorId)}
      />
    </label>
  );
}

/** A wide table's box: it scrolls sideways on a phone and takes keyboard focus to do so. */
export function ScrollRegion({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="scroll-x" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

/** A notice after a successful action (or nothing). */
export function Notice({ text }: { text?: string | null }) {
  return text ? <p class="notice" role="status">{text}</p> : null;
}

/** A code block with a copy button (the button appears when JavaScript runs). */
export function Snippet({ id, title, code }: { id: string; title: string; code: string }) {
  return (
    <div class="snippet">
      <div class="snippet-head">
        <span>{title}</span>
        <button type="button" class="small" data-copy={id} hidden>Copy</button>
      </div>
      <pre id={id}>{code}</pre>
    </div>
  );
}

/** A date and time in UTC, or a dash. */
export function When({ ms }: { ms: number | null | undefined }) {
  if (!ms) return <span class="muted">—</span>;
  const iso = new Date(ms).toISOString();
  return <time dateTime={iso}>{iso.slice(0, 16).replace("T", " ")} UTC</time>;
}

/** A ratio as a percentage, or a dash. */
export function percent(r: number | null): string {
  return r === null ? "—" : `${Math.round(r * 100)} %`;
}
