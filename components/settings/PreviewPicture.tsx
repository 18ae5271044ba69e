/**
 * The project preview's picture: the PNG the hub drew of the model at its defaults
 * (lib/hub/scene_picture.ts), inline as a `data:` image (the settings CSP allows `img-src data:`),
 * so it needs no extra request, no JavaScript and no WebGL.
 */
import type { ProjectPreview } from "@/lib/hub/project_preview.ts";

/** The picture of a preview, with an accessible description of what it shows. */
export function PreviewPicture({ preview, title }: { preview: ProjectPreview; title: string }) {
  const { picture } = preview;
  const size = preview.bbox.max.map((m, i) => (m - preview.bbox.min[i]).toFixed(0)).join(" × ");
  return (
    <figure class="preview-picture" id="preview-picture">
      <img
        src={`data:image/png;base64,${picture.png.toBase64()}`}
        width={picture.width}
        height={picture.height}
        alt={`${title}, version ${preview.version}, at its default parameters: ${
          preview.parts.map((p) => p.name).join(", ")
        } (${size} model units)`}
      />
      <figcaption class="muted">
        Version {preview.version}{" "}
        at its defaults, from the direction the configurator first shows it.
      </figcaption>
    </figure>
  );
}
