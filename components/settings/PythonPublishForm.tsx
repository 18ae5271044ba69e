/**
 * The form that publishes a python-mode version (docs/design.md, "Path 2"): the design's
 * `design.py` and the `parameters.schema.json` that `cadparam emit` wrote, the two files
 * `deno task hub project publish --dir` takes from a python-mode folder. It posts to
 * `/settings/projects/<slug>/publish-python`, which answers with this form again and the problem
 * when the files are refused.
 */
import { CsrfField, FileField } from "./Shell.tsx";

/** A refused upload: the problem's code and detail, and where in which file. */
export interface PublishProblem {
  code: string;
  detail: string;
  file?: string;
  pointer?: string;
  reason?: string;
}

/** Props of the python publish form. */
export interface PythonPublishFormProps {
  slug: string;
  csrf: string;
  error?: PublishProblem;
}

/** The python-mode publish card. */
export function PythonPublishForm({ slug, csrf, error }: PythonPublishFormProps) {
  // The refused file's input points at the message (both when the problem names no file).
  const about = (file: string) => ({
    inError: !!error && (!error.file || error.file === file),
    errorId: "publish-python-error",
  });
  return (
    <section class="card" id="publish-python">
      <h2>Publish a Python design</h2>
      <p>
        For a design declared with <code>mode="python"</code>{" "}
        (its structure changes with a parameter): upload <code>design.py</code> and the{" "}
        <code>parameters.schema.json</code> that{" "}
        <code>python3 -m cadparam emit design.py --out DIR</code>{" "}
        wrote. The customer's browser runs the design (docs/design.md); the same files publish with
        {" "}
        <code>deno task hub project publish --slug {slug} --dir DIR</code>.
      </p>
      {error
        ? (
          <div
            class="error"
            role="alert"
            id="publish-python-error"
            data-code={error.code}
            data-file={error.file}
            data-pointer={error.pointer}
            data-reason={error.reason}
          >
            <div>{error.detail}</div>
            <div>
              <code>{error.code}</code>
              {error.file
                ? (
                  <>
                    {" "}in <code>{error.file}</code>
                    {error.pointer
                      ? (
                        <>
                          {" "}at <code>{error.pointer}</code>
                        </>
                      )
                      : null}
                  </>
                )
                : null}
              {error.reason ? ` (${error.reason})` : ""}
            </div>
          </div>
        )
        : null}
      <form
        method="post"
        action={`/settings/projects/${slug}/publish-python`}
        enctype="multipart/form-data"
        class="stack"
      >
        <CsrfField token={csrf} />
        <div class="row">
          <FileField
            file="design.py"
            name="source"
            accept=".py,text/x-python,text/plain"
            {...about("design.py")}
          />
          <FileField
            file="parameters.schema.json"
            name="schema"
            accept=".json,application/json"
            {...about("parameters.schema.json")}
          />
        </div>
        <div class="actions">
          <button type="submit">Publish Python design</button>
        </div>
      </form>
    </section>
  );
}
