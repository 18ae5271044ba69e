import assert from "node:assert/strict";
import { CliError, cliErrorMessage, runCli } from "@/lib/hub/cli.ts";
import { SigningKeyStore } from "@/lib/token/signing_keys.ts";
import { COMMANDS } from "@/lib/hub/cli.ts";
import { runHubCli } from "../_helpers/process.ts";
import { rid } from "../_helpers/server.ts";

Deno.test("cli - partner, project, key create/list/revoke and signing-key rotate", async (t) => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { partnerId } = await runCli(kv, ["partner", "create", "--name", "Acme"]) as {
      partnerId: string;
    };
    assert.match(partnerId, /^prt_[0-9a-f]{24}$/);
    const slug = `vase-${rid()}`;
    assert.deepEqual(
      await runCli(kv, [
        "project",
        "create",
        "--partner",
        partnerId,
        "--slug",
        slug,
        "--title",
        "Vase",
      ]),
      { slug },
    );
    let keyId = "";
    await t.step("key create returns the plaintext once, with spec defaults", async () => {
      const out = await runCli(kv, [
        "key",
        "create",
        "--partner",
        partnerId,
        "--label",
        "Storefront",
        "--origin",
        "https://Shop.Example:443",
        "--origin",
        "http://localhost:5173",
        "--project",
        slug,
      ]) as Record<string, unknown>;
      keyId = out.keyId as string;
      assert.match(out.key as string, new RegExp(`^sdk_${keyId}_[a-z2-7]{39}$`));
      assert.deepEqual(out.allowedOrigins, ["https://shop.example", "http://localhost:5173"]);
      assert.equal(out.defaultTtlSeconds, 1800);
      assert.equal(out.maxTtlSeconds, 7200);
      assert.equal(out.budget, null);
    });
    await t.step("key create with budget, TTLs and a rate limit", async () => {
      const out = await runCli(kv, [
        "key",
        "create",
        "--partner",
        partnerId,
        "--label",
        "Limited",
        "--origin",
        "https://a.example",
        "--project",
        slug,
        "--budget",
        "100",
        "--default-ttl",
        "600",
        "--max-ttl",
        "3600",
        "--rate-limit",
        "10/60",
      ]) as Record<string, unknown>;
      assert.equal(out.budget, 100);
      assert.equal(out.defaultTtlSeconds, 600);
      assert.equal(out.maxTtlSeconds, 3600);
      assert.deepEqual(out.rateLimit, { points: 10, durationSeconds: 60 });
    });
    await t.step("key list never shows a secret or digest", async () => {
      const out = await runCli(kv, ["key", "list", "--partner", partnerId]) as { keys: unknown[] };
      assert.equal(out.keys.length, 2);
      const text = JSON.stringify(out);
      assert.doesNotMatch(text, /sdk_|digest|secret/);
    });
    await t.step("key revoke", async () => {
      assert.deepEqual(await runCli(kv, ["key", "revoke", "--key-id", keyId]), {
        keyId,
        revoked: true,
      });
      const out = await runCli(kv, ["key", "list", "--partner", partnerId]) as {
        keys: Array<{ keyId: string; revoked: boolean }>;
      };
      assert.equal(out.keys.find((k) => k.keyId === keyId)?.revoked, true);
    });
    await t.step("signing-key rotate makes a new current key", async () => {
      const store = new SigningKeyStore(kv, Date.now);
      const before = await store.ensureCurrent();
      const { kid } = await runCli(kv, ["signing-key", "rotate"]) as { kid: string };
      assert.notEqual(kid, before.kid);
      assert.equal((await store.current())?.kid, kid);
      const published = (await store.publishable()).map((r) => r.kid);
      assert.ok(published.includes(before.kid), "the previous key stays published");
    });
  } finally {
    kv.close();
  }
});

Deno.test("cli - bad input is refused with a message that says what is wrong", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { partnerId } = await runCli(kv, ["partner", "create", "--name", "Acme"]) as {
      partnerId: string;
    };
    const p2 = (await runCli(kv, ["partner", "create", "--name", "Other"]) as { partnerId: string })
      .partnerId;
    const slug = `own-${rid()}`;
    const foreign = `foreign-${rid()}`;
    await runCli(kv, [
      "project",
      "create",
      "--partner",
      partnerId,
      "--slug",
      slug,
      "--title",
      "Own",
    ]);
    await runCli(kv, [
      "project",
      "create",
      "--partner",
      p2,
      "--slug",
      foreign,
      "--title",
      "Theirs",
    ]);
    const key = (origin: string, project = slug, extra: string[] = []) => [
      "key",
      "create",
      "--partner",
      partnerId,
      "--label",
      "x",
      "--origin",
      origin,
      "--project",
      project,
      ...extra,
    ];
    const cases: Array<[string[], RegExp]> = [
      [["partner", "create"], /--name is required/],
      [["frobnicate"], /unknown command "frobnicate"/],
      [["partner", "create", "--nmae", "x"], /nmae/],
      [key("https://*.example.com"), /invalid_origin: .*wildcard/i],
      [key("https://shop.example/"), /invalid_origin: .*trailing slash/],
      [key("null"), /invalid_origin/],
      [key("shop.example"), /invalid_origin: .*scheme/],
      [key("https://a.example", foreign), /unknown_project: .*foreign-/],
      [
        key("https://a.example", slug, ["--max-ttl", "999999"]),
        /max TTL must be an integer from 60 to 43200/,
      ],
      [
        key("https://a.example", slug, ["--default-ttl", "8000"]),
        /default TTL must be an integer from 60 to 7200/,
      ],
      [
        key("https://a.example", slug, ["--budget", "1.5"]),
        /--budget must be a non-negative integer/,
      ],
      [key("https://a.example", slug, ["--rate-limit", "fast"]), /--rate-limit must look like/],
      [[
        "key",
        "create",
        "--partner",
        "prt_nope",
        "--label",
        "x",
        "--origin",
        "https://a.example",
        "--project",
        slug,
      ], /unknown_partner/],
      [["key", "revoke", "--key-id", "knope"], /no key has the keyId/],
      [["project", "create", "--partner", partnerId, "--slug", "Bad Slug", "--title", "t"], /slug/],
      [
        ["project", "create", "--partner", partnerId, "--slug", slug, "--title", "t"],
        /project_exists/,
      ],
    ];
    for (const [argv, message] of cases) {
      const err = await runCli(kv, argv).then(() => null, (e) => e);
      assert.ok(err, `${argv.join(" ")} should fail`);
      assert.match(cliErrorMessage(err), message, argv.join(" "));
    }
    assert.ok(new CliError("x") instanceof Error);
  } finally {
    kv.close();
  }
});

Deno.test("cli - the real command prints JSON and exits non-zero on bad input", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const env = { KV_PATH: `${dir}/hub.kv` };
    const ok = await runHubCli(["partner", "create", "--name", "Shell Co"], env);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(JSON.parse(ok.stdout).partnerId, /^prt_/);
    const bad = await runHubCli(["key", "create", "--partner", "nope"], env);
    assert.notEqual(bad.code, 0);
    assert.equal(bad.stdout, "");
    assert.match(bad.stderr, /--label is required/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli - --help on every command prints its usage and exits 0; partner list", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const env = { KV_PATH: `${dir}/hub.kv` };
    for (const command of Object.keys(COMMANDS)) {
      const out = await runHubCli([...command.split(" "), "--help"], env);
      assert.equal(out.code, 0, `${command}: ${out.stderr}`);
      assert.equal(out.stderr, "");
      assert.ok(out.stdout.includes(`deno task hub ${COMMANDS[command].synopsis}`), command);
      assert.ok(out.stdout.includes(COMMANDS[command].help.split("\n")[0]), command);
    }
    const all = await runHubCli(["--help"], env);
    assert.equal(all.code, 0);
    for (const command of Object.keys(COMMANDS)) assert.ok(all.stdout.includes(command), command);
    const unknown = await runHubCli(["partner", "delete"], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "partner delete"/);

    const created = await runHubCli(["partner", "create", "--name", "Listed Co"], env);
    const { partnerId } = JSON.parse(created.stdout);
    const listed = await runHubCli(["partner", "list"], env);
    assert.equal(listed.code, 0, listed.stderr);
    const { partners } = JSON.parse(listed.stdout);
    assert.deepEqual(
      partners.filter((p: { partnerId: string }) => p.partnerId === partnerId).map((
        p: { name: string },
      ) => p.name),
      ["Listed Co"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
