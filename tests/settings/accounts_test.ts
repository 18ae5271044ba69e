import assert from "node:assert/strict";
import { inviteMember, signIn, signUp } from "@/lib/auth/accounts.ts";
import { hashPassword, verifyPassword } from "@/lib/auth/password.ts";
import {
  ABSOLUTE_TIMEOUT_MS,
  createSession,
  IDLE_TIMEOUT_MS,
  readSession,
} from "@/lib/auth/sessions.ts";
import { SignInThrottle } from "@/lib/auth/sign_in_throttle.ts";
import { sessionCookie, sessionCookieName } from "@/lib/auth/session_cookie.ts";
import { getAccountByEmail } from "@/lib/store/accounts.ts";
import { rid } from "../_helpers/redis.ts";
import { REDIS_TARGETS } from "../_helpers/redis_cluster.ts";

Deno.test("accounts - passwords are argon2id PHC strings and verify only the right password", async () => {
  const stored = await hashPassword("correct horse battery");
  assert.match(stored, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.equal(await verifyPassword("correct horse battery", stored), true);
  assert.equal(await verifyPassword("correct horse batterY", stored), false);
  assert.equal(await verifyPassword("correct horse battery", "$argon2id$garbage"), false);
  assert.notEqual(await hashPassword("correct horse battery"), stored, "fresh salt each time");
});

Deno.test("accounts - sign-up creates a partner owner; invitations join as the chosen role once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const owner = await signUp(kv, {
      email: `Owner-${rid()}@Shop.example`,
      password: "correct horse battery",
      partnerName: "Shop",
    });
    assert.equal(owner.role, "owner");
    assert.equal(owner.email, owner.email.toLowerCase());
    await assert.rejects(
      signUp(kv, { email: owner.email, password: "another password!", partnerName: "X" }),
      { code: "account_exists" },
    );
    const email = `dev-${rid()}@shop.example`;
    const token = await inviteMember(kv, owner, { email, role: "developer" });
    await assert.rejects(
      signUp(kv, {
        email: `other-${rid()}@shop.example`,
        password: "long enough pw",
        inviteToken: token,
      }),
      { code: "validation_failed" },
    );
    const dev = await signUp(kv, { email, password: "long enough pw", inviteToken: token });
    assert.equal(dev.partnerId, owner.partnerId);
    assert.equal(dev.role, "developer");
    await assert.rejects(
      signUp(kv, {
        email: `x-${rid()}@shop.example`,
        password: "long enough pw",
        inviteToken: token,
      }),
      { code: "invite_invalid" },
    );
    await assert.rejects(inviteMember(kv, dev, { email: `y-${rid()}@a.example`, role: "owner" }), {
      code: "forbidden",
    });
  } finally {
    kv.close();
  }
});

for (const target of REDIS_TARGETS) {
  Deno.test(`accounts - failed sign-ins are throttled per account in Redis (${target.name})`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      await target.run(async (redis, prefix, admin) => {
        const throttle = new SignInThrottle({ redis, prefix });
        const account = await signUp(kv, {
          email: `t-${rid()}@shop.example`,
          password: "correct horse battery",
          partnerName: "Shop",
        });
        const attempt = (password: string, clientIp = "198.51.100.7") =>
          signIn(kv, throttle, { email: account.email, password, clientIp });
        for (let i = 0; i < 5; i++) {
          await assert.rejects(attempt("wrong password!"), { code: "sign_in_failed" });
        }
        // The sixth attempt is refused before the password is checked, even with the right one.
        await assert.rejects(attempt("correct horse battery", "203.0.113.1"), (
          err: Error & {
            code: string;
            headers: Record<string, string>;
          },
        ) => {
          assert.equal(err.code, "sign_in_throttled");
          assert.ok(Number(err.headers["Retry-After"]) > 0);
          return true;
        });
        assert.ok((await admin.keys(`${prefix}signin:*`)).length > 0, "counters live in Redis");
        // An unknown email answers exactly like a wrong password.
        await assert.rejects(
          signIn(kv, throttle, { email: "nobody@x.example", password: "x", clientIp: "192.0.2.1" }),
          { code: "sign_in_failed" },
        );
        assert.ok(await getAccountByEmail(kv, account.email));
      });
    } finally {
      kv.close();
    }
  });
}

Deno.test("accounts - failed sign-ins are throttled per client across accounts (in process)", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const throttle = new SignInThrottle({ prefix: "t:" });
    const ip = "198.51.100.99";
    for (let i = 0; i < 20; i++) {
      await assert.rejects(
        signIn(kv, throttle, { email: `u${i}@x.example`, password: "wrong", clientIp: ip }),
        { code: "sign_in_failed" },
      );
    }
    await assert.rejects(
      signIn(kv, throttle, { email: "fresh@x.example", password: "wrong", clientIp: ip }),
      { code: "sign_in_throttled" },
    );
    // Another client is not affected.
    await assert.rejects(
      signIn(kv, throttle, { email: "fresh@x.example", password: "wrong", clientIp: "192.0.2.7" }),
      { code: "sign_in_failed" },
    );
  } finally {
    kv.close();
  }
});

Deno.test("accounts - sessions store only a hash of the id and end on idle and absolute timeouts", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const t0 = 1_800_000_000_000;
    const { id } = await createSession(kv, { accountId: "acc_1", partnerId: "prt_1" }, t0);
    assert.match(id, /^[A-Za-z0-9_-]{22}$/, "128 random bits, base64url");
    for await (const e of kv.list({ prefix: ["sessions"] })) {
      assert.notEqual(e.key[1], id, "the id itself is not the KV key");
      assert.ok(!JSON.stringify(e.value).includes(id));
    }
    assert.ok(await readSession(kv, id, t0 + IDLE_TIMEOUT_MS - 1000));
    // Activity keeps it alive past one idle period …
    assert.ok(await readSession(kv, id, t0 + 2 * IDLE_TIMEOUT_MS - 5000));
    // … but not past an idle gap.
    assert.equal(await readSession(kv, id, t0 + 4 * IDLE_TIMEOUT_MS), null);

    const b = await createSession(kv, { accountId: "acc_2", partnerId: "prt_1" }, t0);
    let t = t0;
    while (t < t0 + ABSOLUTE_TIMEOUT_MS - IDLE_TIMEOUT_MS) {
      t += IDLE_TIMEOUT_MS / 2;
      assert.ok(await readSession(kv, b.id, t), "active session lives");
    }
    assert.equal(await readSession(kv, b.id, t0 + ABSOLUTE_TIMEOUT_MS), null, "absolute timeout");
    assert.equal(await readSession(kv, "not-a-session-id", t0), null);
  } finally {
    kv.close();
  }
});

Deno.test("accounts - the cookie is __Host- and Secure over https, plain over local http", () => {
  assert.equal(sessionCookieName(true), "__Host-session");
  assert.equal(
    sessionCookie(true, "abc", 60),
    "__Host-session=abc; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure",
  );
  assert.equal(
    sessionCookie(false, "abc", 60),
    "session=abc; Path=/; HttpOnly; SameSite=Lax; Max-Age=60",
  );
});
