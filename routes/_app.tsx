/** The HTML shell of every page: title, description, the site icon, the shared stylesheet. */
import type { AppProps } from "@/lib/app/context.ts";

/** What a page without its own description says about itself. */
const DESCRIPTION =
  "Parametric 3D products your customers shape on your storefront: partner keys, session tokens " +
  "and a live CAD configurator.";

export default function App({ title, description, children }: AppProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title ? `${title} · CAD Configurator` : "CAD Configurator"}</title>
        <meta name="description" content={description ?? DESCRIPTION} />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="icon" href="/favicon.ico" sizes="16x16 32x32 48x48" />
        <link rel="stylesheet" href="/styles.css" />
      </head>
      <body>{children}</body>
    </html>
  );
}
