/**
 * A validating proxy in a test's hands: it resolves a request to the OpenAPI document's operation
 * by path and method, and checks the response against it (status documented, content type
 * documented, body valid against the schema, required headers present). A 2xx answer to a request
 * with a body also checks that body against the documented request body. It remembers what it
 * saw, so a test can ask which documented statuses and problem codes no real response showed.
 */
import { Ajv2020 } from "ajv/dist/2020.js";

/** The parts of an OpenAPI document the checker reads. */
interface Media {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, Media>;
  headers?: Record<string, { required?: boolean }>;
}
interface Parameter {
  name: string;
  in: string;
  "x-multi-segment"?: boolean;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, ResponseObject>;
}
/** An OpenAPI 3.1 document. */
export type OpenApiDoc = {
  openapi: string;
  paths: Record<string, Record<string, Operation | unknown>>;
};

/** The HTTP methods an OpenAPI path item may hold. */
export const OPERATION_METHODS = ["get", "put", "post", "delete", "options", "head", "patch"];

const escape = (s: string) => s.replaceAll("~", "~0").replaceAll("/", "~1");
const mediaType = (header: string | null) => (header ?? "").split(";")[0].trim().toLowerCase();

/** What the checker found in one answer. */
export interface Checked {
  operation: string;
  status: number;
  code?: string;
  body: unknown;
}

/** Checks responses against one OpenAPI document and records what was covered. */
export class ContractChecker {
  // Formats (zod emits some, e.g. `starts_with`) are not checked: Ajv has none without ajv-formats;
  // the patterns next to them are.
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  readonly #seen = new Set<string>();
  readonly #paths: Array<{ template: string; pattern: RegExp; params: number }>;

  constructor(readonly doc: OpenApiDoc) {
    this.#ajv.addSchema(doc, "openapi.json");
    this.#paths = Object.entries(doc.paths).map(([template, item]) => {
      // A parameter marked `x-multi-segment` (a catch-all route) may hold slashes.
      const multi = new Set(
        OPERATION_METHODS.flatMap((m) => (item[m] as Operation | undefined)?.parameters ?? [])
          .filter((p) => p.in === "path" && p["x-multi-segment"]).map((p) => p.name),
      );
      const escaped = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
      const source = escaped.replace(/\{([^}]+)\}/g, (_, n) => multi.has(n) ? ".+" : "[^/]+");
      return {
        template,
        pattern: new RegExp(`^${source}$`),
        params: (template.match(/\{/g) ?? []).length,
      };
    }).sort((a, b) => a.params - b.params);
  }

  /** Every operation of the document as `METHOD /template`. */
  operations(): string[] {
    return Object.entries(this.doc.paths).flatMap(([template, item]) =>
      OPERATION_METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${template}`)
    );
  }

  /**
   * What a complete test must show per operation: each documented non-problem status, and each
   * problem code a problem response lists (`METHOD /template code`).
   */
  expectations(): string[] {
    const out: string[] = [];
    for (const op of this.operations()) {
      const [method, template] = op.split(" ");
      const operation = this.doc.paths[template][method.toLowerCase()] as Operation;
      for (const [status, response] of Object.entries(operation.responses)) {
        const problem = response.content?.["application/problem+json"]?.schema as
          | { properties?: { code?: { enum?: string[] } } }
          | undefined;
        const codes = problem?.properties?.code?.enum;
        if (codes) { for (const code of codes) out.push(`${op} ${code}`); }
        else out.push(`${op} ${status}`);
      }
    }
    return out;
  }

  /** The expectations no checked response met. */
  uncovered(): string[] {
    return this.expectations().filter((e) => !this.#seen.has(e));
  }

  /**
   * Checks `res`, the answer to `req` (whose body text was `requestBody`); throws on a mismatch.
   */
  async check(req: Request, requestBody: string | undefined, res: Response): Promise<Checked> {
    const url = new URL(req.url);
    const found = this.#paths.find((p) => p.pattern.test(url.pathname));
    const where = `${req.method} ${url.pathname} → ${res.status}`;
    if (!found) throw new Error(`${where}: the path is not documented`);
    const method = req.method.toLowerCase();
    const operation = this.doc.paths[found.template][method] as Operation | undefined;
    if (!operation) throw new Error(`${where}: ${req.method} ${found.template} is not documented`);
    const op = `${req.method} ${found.template}`;
    const base = `/paths/${escape(found.template)}/${method}`;

    if (requestBody !== undefined && res.status < 300) {
      const type = mediaType(req.headers.get("content-type"));
      const media = operation.requestBody?.content[type];
      if (!media) throw new Error(`${where}: a ${type} request body is not documented`);
      this.#validate(
        `${base}/requestBody/content/${escape(type)}/schema`,
        JSON.parse(requestBody),
        `${where}: request body`,
      );
    }

    const response = operation.responses[String(res.status)];
    if (!response) throw new Error(`${where}: status ${res.status} is not documented for ${op}`);
    for (const [name, h] of Object.entries(response.headers ?? {})) {
      if (h.required && !res.headers.has(name)) throw new Error(`${where}: no ${name} header`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    const type = mediaType(res.headers.get("content-type"));
    if (!response.content) {
      if (bytes.length) throw new Error(`${where}: a body where none is documented`);
      this.#seen.add(`${op} ${res.status}`);
      return { operation: op, status: res.status, body: undefined };
    }
    if (!response.content[type]) {
      throw new Error(`${where}: content type "${type}" is not documented`);
    }
    const pointer = `${base}/responses/${res.status}/content/${escape(type)}/schema`;
    let body: unknown = undefined;
    if (type === "application/json" || type.endsWith("+json")) {
      body = JSON.parse(new TextDecoder().decode(bytes));
    } else if (type.startsWith("text/")) {
      body = new TextDecoder().decode(bytes);
    }
    // Binary files (wasm, zip) are documented without a schema to check.
    if (body !== undefined) this.#validate(pointer, body, where);
    const code = type === "application/problem+json" ? (body as { code: string }).code : undefined;
    this.#seen.add(code ? `${op} ${code}` : `${op} ${res.status}`);
    return { operation: op, status: res.status, code, body };
  }

  #validate(pointer: string, value: unknown, where: string): void {
    const validate = this.#ajv.getSchema(`openapi.json#${pointer}`);
    if (!validate) throw new Error(`${where}: no schema at ${pointer}`);
    if (!validate(value)) {
      throw new Error(
        `${where}: ${this.#ajv.errorsText(validate.errors)}\n${
          JSON.stringify(value).slice(0, 400)
        }`,
      );
    }
  }
}
