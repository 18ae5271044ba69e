/**
 * Typings of `<cad-configurator>` for TypeScript apps: the tag in `document.createElement` and
 * `querySelector`, its typed `cad-*` events, and the tag in React's and Preact's JSX.
 * (Shipped as `dist/element-jsx.d.ts`; `dist/element.d.ts` imports it.)
 */
import type { CadConfiguratorElement } from "./element.ts";
import type { RenderResult, SessionStatus } from "./index.ts";
import type * as React from "react";
import type { HTMLAttributes as PreactHTMLAttributes } from "preact";

/** The attributes of `<cad-configurator>` (docs/embedding.md). */
export interface CadConfiguratorAttributes {
  /** Browser flow: the publishable keyId. */
  "key-id"?: string;
  /** Server flow: a token minted by the partner's backend (set again to hand over a new one). */
  "session-token"?: string;
  /** The project slug. */
  project: string;
  /** The hub's base URL (required when the script is bundled from npm). */
  "hub-url"?: string;
  /** The render service's base URL (default `hub-url`). */
  "kernel-url"?: string;
  /** JSON of the initial parameter values. */
  values?: string;
  /** Hide the title bar. */
  compact?: boolean | "";
  /** The base URL of share links (default: this page's URL); a `cad` link in it is restored. */
  "share-url"?: string;
}

/** The `detail` of each event `<cad-configurator>` dispatches (bubbling, composed). */
export interface CadConfiguratorEventDetails {
  "cad-ready": { project: string; version: number; values: Record<string, unknown> };
  "cad-change": { values: Record<string, unknown> };
  "cad-rendered": { result: RenderResult };
  "cad-status": { tokenStatus: SessionStatus };
  "cad-tokenexpired": { token: string };
  "cad-error": { code: string; detail: string };
}

/** The events of `<cad-configurator>` as `CustomEvent`s. */
export type CadConfiguratorEventMap = {
  [K in keyof CadConfiguratorEventDetails]: CustomEvent<CadConfiguratorEventDetails[K]>;
};

declare global {
  interface HTMLElementTagNameMap {
    "cad-configurator": CadConfiguratorElement;
  }
  interface HTMLElementEventMap extends CadConfiguratorEventMap {}
}

declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "cad-configurator":
        & React.DetailedHTMLProps<
          React.HTMLAttributes<CadConfiguratorElement>,
          CadConfiguratorElement
        >
        & CadConfiguratorAttributes;
    }
  }
}

declare module "preact" {
  namespace JSX {
    interface IntrinsicElements {
      "cad-configurator": PreactHTMLAttributes<CadConfiguratorElement> & CadConfiguratorAttributes;
    }
  }
}
