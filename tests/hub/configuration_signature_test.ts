import assert from "node:assert/strict";
import {
  ConfigurationError,
  signConfiguration,
  verifyConfiguration,
} from "@/lib/hub/configuration_signature.ts";
import { validateParameterSchema } from "@/lib/dag/parameter_schema.ts";
import { Keyring } from "@/lib/token/keyring.ts";
import { SigningKeyStore } from "@/lib/token/signing_keys.ts";
import { toJwks } from "@/lib/token/jwks.ts";
import { readProjectFixture } from "../_helpers/projects.ts";
import { AppError } from "@/lib/http/problem.ts";

async function setup() {
  const kv = await Deno.openKv(":memory:");
  const store = new SigningKeyStore(kv, Date.now);
  const keyring = await Keyring.load(store);
  const jwks = toJwks(await store.publishable());
  const { template, schema } = await readProjectFixture("plate");
  return { kv, keyring, jwks, template, schema: validateParameterSchema(schema) };
}

Deno.test("configuration signature - a signed configuration verifies with the JWKS and carries the hub's hash", async (t) => {
  const { kv, keyring, jwks, template, schema } = await setup();
  try {
    const now = Date.now();
    const first = schema.parameters[0];
    const { configuration, claims } = await signConfiguration({
      template,
      schema,
      project: "plate",
      version: 1,
      values: {},
      token: { partner: "p1", client_id: "k1", sub: "u1" },
      signingKey: keyring.signingKey(),
      now,
    });
    assert.match(claims.dagHash, /^[0-9a-f]{64}$/);
    assert.equal(claims.values[first.name], first.default, "defaults are filled in");
    const verified = await verifyConfiguration(configuration, jwks as never, { now });
    assert.deepEqual(verified, claims);

    await t.step("a changed payload does not verify", async () => {
      const [h, p, s] = configuration.split(".");
      const payload = JSON.parse(atob(p.replaceAll("-", "+").replaceAll("_", "/")));
      payload.version = 2;
      const forged = btoa(JSON.stringify(payload)).replaceAll("+", "-").replaceAll("/", "_")
        .replaceAll("=", "");
      await assert.rejects(
        verifyConfiguration(`${h}.${forged}.${s}`, jwks as never, { now }),
        (e) => e instanceof ConfigurationError && e.reason === "invalid_signature",
      );
    });
    await t.step("an expired configuration does not verify", async () => {
      await assert.rejects(
        verifyConfiguration(configuration, jwks as never, { now: now + 3 * 86_400_000 }),
        (e) => e instanceof ConfigurationError && e.reason === "expired",
      );
    });
    await t.step("another key set does not verify it", async () => {
      const other = await setup();
      await assert.rejects(
        verifyConfiguration(configuration, other.jwks as never, { now }),
        (e) => e instanceof ConfigurationError && e.reason === "invalid_signature",
      );
      other.kv.close();
    });
    await t.step("junk is malformed", async () => {
      await assert.rejects(
        verifyConfiguration("a.b.c", jwks as never, { now }),
        (e) => e instanceof ConfigurationError && e.reason === "malformed",
      );
    });
  } finally {
    kv.close();
  }
});

Deno.test("configuration signature - invalid values are refused with a pointer", async () => {
  const { kv, keyring, template, schema } = await setup();
  try {
    const numeric = schema.parameters.find((p) => p.kind === "Int" || p.kind === "Float")!;
    await assert.rejects(
      signConfiguration({
        template,
        schema,
        project: "plate",
        version: 1,
        values: { [numeric.name]: numeric.maximum! + 1000 },
        token: { partner: "p1", sub: "u1" },
        signingKey: keyring.signingKey(),
        now: Date.now(),
      }),
      (e) => e instanceof AppError && e.code === "invalid_parameters",
    );
  } finally {
    kv.close();
  }
});
