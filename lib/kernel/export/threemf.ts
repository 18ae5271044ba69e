/**
 * 3MF (3D Manufacturing Format, core specification 1.3): an OPC package (ZIP) of
 * `[Content_Types].xml`, `_rels/.rels` and `3D/3dmodel.model`, in millimetres. One `object` per
 * part with its mesh (vertices and triangles as the kernel holds them, exact float32 values
 * written in the shortest decimal that reads back to the same float32), its colour from one
 * `basematerials` group, and one build `item` per instance carrying the instance's transform. A
 * mirrored instance (negative determinant) uses a twin object with reversed triangles, so every
 * placed triangle still winds counter-clockwise seen from outside.
 */
import type { ExportModel } from "./export_model.ts";
import { determinant, drawnParts, isIdentity } from "./export_model.ts";
import { zipEntries } from "./zip_store.ts";

const CORE = "http://schemas.microsoft.com/3dmanufacturing/core/2015/02";

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
 <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
 <Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>
</Types>
`;

const RELS = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
 <Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>
</Relationships>
`;

/** Builds the 3MF package of a model. */
export function build3mf(model: ExportModel): Uint8Array {
  const encoder = new TextEncoder();
  return zipEntries([
    { name: "[Content_Types].xml", data: encoder.encode(CONTENT_TYPES) },
    { name: "_rels/.rels", data: encoder.encode(RELS) },
    { name: "3D/3dmodel.model", data: encoder.encode(modelXml(model)) },
  ]);
}

/** The 3D model part: resources (materials, objects) and the build. */
export function modelXml(model: ExportModel): string {
  const parts = drawnParts(model);
  const colors: string[] = [];
  for (const part of parts) if (!colors.includes(part.color)) colors.push(part.color);
  const out: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>\n`,
    `<model unit="millimeter" xml:lang="en-US" xmlns="${CORE}">\n`,
    ` <metadata name="Title">${escapeXml(model.title)}</metadata>\n`,
    ` <metadata name="Application">cad-configurator kernel-api</metadata>\n`,
    ` <resources>\n`,
  ];
  const materials = 1;
  if (colors.length > 0) {
    out.push(`  <basematerials id="${materials}">\n`);
    for (const color of colors) {
      out.push(`   <base name="${color}" displaycolor="${color.toUpperCase()}FF"/>\n`);
    }
    out.push(`  </basematerials>\n`);
  }
  const items: string[] = [];
  let nextId = materials + 1;
  for (const part of parts) {
    const pindex = colors.indexOf(part.color);
    const ids: Partial<Record<"plain" | "mirrored", number>> = {};
    for (const t of part.instances) {
      const side = determinant(t) < 0 ? "mirrored" : "plain";
      let id = ids[side];
      if (id === undefined) {
        id = ids[side] = nextId++;
        const name = escapeXml(side === "plain" ? part.name : `${part.name} (mirrored)`);
        out.push(
          `  <object id="${id}" type="model" name="${name}" pid="${materials}" pindex="${pindex}">\n`,
        );
        meshXml(part.exact.positions, part.exact.indices, side === "mirrored", out);
        out.push(`  </object>\n`);
      }
      items.push(
        isIdentity(t)
          ? `  <item objectid="${id}"/>\n`
          : `  <item objectid="${id}" transform="${transformOf(t)}"/>\n`,
      );
    }
  }
  out.push(` </resources>\n <build>\n`, ...items, ` </build>\n</model>\n`);
  return out.join("");
}

function meshXml(positions: Float32Array, indices: Uint32Array, flip: boolean, out: string[]) {
  out.push(`   <mesh>\n    <vertices>\n`);
  for (let i = 0; i < positions.length; i += 3) {
    out.push(
      `     <vertex x="${num(positions[i])}" y="${num(positions[i + 1])}" z="${
        num(positions[i + 2])
      }"/>\n`,
    );
  }
  out.push(`    </vertices>\n    <triangles>\n`);
  for (let i = 0; i < indices.length; i += 3) {
    const [b, c] = flip ? [indices[i + 2], indices[i + 1]] : [indices[i + 1], indices[i + 2]];
    out.push(`     <triangle v1="${indices[i]}" v2="${b}" v3="${c}"/>\n`);
  }
  out.push(`    </triangles>\n   </mesh>\n`);
}

/**
 * A column-major 4×4 transform as 3MF's 3×4 row-vector matrix "m00 m01 m02 m10 … m32" (a point
 * is the row vector [x y z 1] times the matrix, so the translation is the last row).
 */
function transformOf(t: readonly number[]): string {
  return [t[0], t[1], t[2], t[4], t[5], t[6], t[8], t[9], t[10], t[12], t[13], t[14]]
    .map((v) => String(v + 0)).join(" ");
}

/** The shortest decimal that reads back as the same float32. */
function num(v: number): string {
  if (Number.isInteger(v)) return String(v + 0);
  for (let digits = 6; digits < 9; digits++) {
    const text = v.toPrecision(digits);
    if (Math.fround(Number(text)) === v) return String(Number(text));
  }
  return String(Number(v.toPrecision(9)));
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
