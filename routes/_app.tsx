/** The HTML shell of every page. */
import type { AppProps } from "@/lib/app/context.ts";

export default function App({ title, children }: AppProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title ? `${title} · CAD Configurator` : "CAD Configurator"}</title>
        <link rel="stylesheet" href="/styles.css" />
      </head>
      <body>{children}</body>
    </html>
  );
}
