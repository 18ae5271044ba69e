/**
 * `@cad-configurator/sdk/element`: registers `<cad-configurator>` (the module the hub serves at
 * `/sdk/v1/embed.js`). From npm, set `hub-url`: the default is where the script was loaded from,
 * which is the app's own origin once a bundler copied it. JSX typings: `element_jsx.d.ts`.
 */
export * from "../../../lib/sdk/embed_element.ts";
