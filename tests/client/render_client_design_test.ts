/**
 * `RenderClient` with a design runner: python-mode projects render through `render(values)` like
 * template projects. The runner here is CPython running the same `cadparam` package the browser's
 * Pyodide worker runs (the Chromium tests in tests/e2e cover Pyodide itself); the server is real.
 */
import assert from "node:assert/strict";
import { ManualClock } from "@/lib/client/clock.ts";
import { RenderError } from "@/lib/client/problem.ts";
import { PythonRuntimeError } from "@/lib/client/python_runtime.ts";
import { type DesignRunner, RenderClient } from "@/lib/client/render_client.ts";
import { SessionClient } from "@/lib/client/session_client.ts";
import { readProjectDir } from "@/lib/hub/project_dir.ts";
import { publishProject } from "@/lib/hub/publish.ts";
import type { Dag } from "@/lib/dag/dag_types.ts";
import { createKeyFixture, startTestServer } from "../_helpers/server.ts";
import { cadparam, PROJECTS } from "../design/_python.ts";

const RENDER_PATH = "/v1/kernels/manifold/render";

/** Runs a python-mode design with CPython, recording the values of every run. */
class CPythonRunner implements DesignRunner {
  readonly runs: Record<string, unknown>[] = [];

  async run(source: string, values: Record<string, unknown>): Promise<Dag> {
    this.runs.push(values);
    const file = await Deno.makeTempFile({ suffix: ".py" });
    try {
      await Deno.writeTextFile(file, source);
      return JSON.parse(await cadparam(["run", file, "--values", JSON.stringify(values)]));
    } finally {
      await Deno.remove(file);
    }
  }
}

interface Setup {
  renderer: RenderClient;
  runner: DesignRunner;
  renders: () => number;
}

async function withShelf(
  runner: DesignRunner,
  fn: (s: Setup) => Promise<void>,
): Promise<void> {
  const server = await startTestServer();
  const key = await createKeyFixture(server.deps.kv);
  await publishProject(
    server.deps.kv,
    key.project,
    await readProjectDir(new URL("shelf/", PROJECTS)),
  );
  let renders = 0;
  const browserFetch = ((input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("origin", key.origin);
    if (String(input).endsWith(RENDER_PATH)) renders++;
    return fetch(input, { ...init, headers });
  }) as typeof fetch;
  const session = new SessionClient({
    keyId: key.keyId,
    projectKey: key.project,
    hubBaseUrl: server.url,
    fetch: browserFetch,
    clock: new ManualClock(Date.now()),
  });
  const renderer = new RenderClient({
    baseUrl: server.url,
    session,
    fetch: browserFetch,
    design: runner,
  });
  try {
    const project = await renderer.loadProject(key.project);
    assert.equal(project.mode, "python");
    await fn({ renderer, runner, renders: () => renders });
  } finally {
    renderer.dispose();
    session.dispose();
    await server.close();
  }
}

Deno.test("client - a python-mode project renders through render() with a design runner", async () => {
  const runner = new CPythonRunner();
  await withShelf(runner, async ({ renderer }) => {
    const two = await renderer.render({ boards: 2 });
    const six = await renderer.render({ boards: 6, back: true });
    assert.equal(runner.runs.length, 2);
    assert.equal(runner.runs[0].boards, 2);
    assert.equal(runner.runs[0].width, 800, "the runner gets every value, defaults filled in");
    assert.equal(six.values.boards, 6);
    assert.ok(six.triangles > two.triangles, `${six.triangles} > ${two.triangles}`);
    assert.notEqual(six.dagHash, two.dagHash);
    assert.equal(renderer.state.value.status, "ready");
  });
});

Deno.test("client - python-mode values are checked before the design runs", async () => {
  const runner = new CPythonRunner();
  await withShelf(runner, async ({ renderer, renders }) => {
    for (
      const [values, reason] of [[{ boards: 99 }, "out_of_range"], [
        { shelves: 2 },
        "unknown_parameter",
      ]] as const
    ) {
      await assert.rejects(renderer.render(values), (err: unknown) => {
        assert.ok(err instanceof RenderError);
        assert.equal(err.code, "invalid_parameters");
        assert.equal(err.reason, reason);
        return true;
      });
    }
    assert.equal(runner.runs.length, 0);
    assert.equal(renders(), 0);
    assert.equal(renderer.state.value.status, "error");
  });
});

Deno.test("client - values that arrive while the design runs replace the waiting ones", async () => {
  const runner = new CPythonRunner();
  await withShelf(runner, async ({ renderer, renders }) => {
    const calls = [3, 4, 5, 6].map((boards) => renderer.render({ boards }));
    const results = await Promise.all(calls);
    // 3 runs at once; 4 and 5 wait and are replaced by 6; 3's DAG is stale when it is done.
    assert.deepEqual(runner.runs.map((v) => v.boards), [3, 6]);
    assert.equal(renders(), 1);
    for (const result of results) assert.equal(result.values.boards, 6);
  });
});

Deno.test("client - a design that fails sets a typed error and the next values render", async () => {
  const real = new CPythonRunner();
  const runner: DesignRunner = {
    run(source, values) {
      if (values.boards === 7) {
        return Promise.reject(
          new PythonRuntimeError("design_error", "ValueError: seven boards are unlucky", {
            kind: "design",
          }),
        );
      }
      return real.run(source, values);
    },
  };
  await withShelf(runner, async ({ renderer, renders }) => {
    await assert.rejects(renderer.render({ boards: 7 }), (err: unknown) => {
      assert.ok(err instanceof RenderError);
      assert.equal(err.code, "design_error");
      assert.match(err.detail, /unlucky/);
      return true;
    });
    const state = renderer.state.value;
    assert.equal(state.status, "error");
    assert.equal(state.status === "error" && state.error.code, "design_error");
    assert.equal(renders(), 0);
    const ok = await renderer.render({ boards: 3 });
    assert.equal(ok.values.boards, 3);
    assert.equal(renderer.state.value.status, "ready");
  });
});

Deno.test("client - without a design runner a python-mode project is unsupported", async () => {
  const server = await startTestServer();
  const key = await createKeyFixture(server.deps.kv);
  try {
    await publishProject(
      server.deps.kv,
      key.project,
      await readProjectDir(new URL("shelf/", PROJECTS)),
    );
    const session = new SessionClient({ sessionToken: "sv1.unused.unused" });
    const renderer = new RenderClient({ baseUrl: server.url, session });
    await renderer.loadProject(key.project);
    await assert.rejects(renderer.render({}), (err: unknown) => {
      assert.ok(err instanceof RenderError);
      assert.equal(err.code, "unsupported_mode");
      return true;
    });
    renderer.dispose();
    session.dispose();
  } finally {
    await server.close();
  }
});
