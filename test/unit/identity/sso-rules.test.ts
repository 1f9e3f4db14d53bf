// Single sign-on's rules as plain modules: which role the claim → role mapping gives, which email
// and domain sign in, which issuers an organization may configure, where a sign-in may land.
import { describe, expect, it } from "vitest";
import { claimAt, displayNameOf, domainAllowed, emailOf, mappedRole } from "../../../src/features/identity/sso/claims";
import { issuerProblem } from "../../../src/features/identity/sso/issuer";
import { safeReturnTo, ssoPaths } from "../../../src/features/identity/sso/paths";
import type { RoleMapping } from "../../../src/features/identity/tables";
import { parseOutboundAllow, PUBLIC_ONLY } from "../../../src/platform/outbound/policy";

const mapping = (over: Partial<RoleMapping> = {}): RoleMapping => ({
  claim: "groups",
  values: { "cdis-auditors": "auditor", "cdis-clinicians": "clinician", "cdis-admins": "admin", "cdis-engineers": "integration_engineer" },
  default: null,
  sync: false,
  ...over,
});

describe("claim → role mapping", () => {
  it("maps a string or an array claim; several mapped values give the most privileged role, whatever their order", () => {
    expect(mappedRole({ groups: "cdis-clinicians" }, mapping())).toBe("clinician");
    expect(mappedRole({ groups: ["staff", "cdis-auditors", "cdis-engineers"] }, mapping())).toBe("integration_engineer");
    expect(mappedRole({ groups: ["cdis-auditors", "cdis-admins", "cdis-clinicians"] }, mapping())).toBe("admin");
  });

  it("falls back to the default, or to none", () => {
    expect(mappedRole({ groups: ["staff"] }, mapping())).toBeNull();
    expect(mappedRole({}, mapping({ default: "clinician" }))).toBe("clinician");
    expect(mappedRole({ groups: ["staff"] }, mapping({ default: "auditor" }))).toBe("auditor");
    // Values are compared exactly: no case folding, no substrings; non-strings are ignored.
    expect(mappedRole({ groups: ["CDIS-ADMINS", "cdis-admins-old", 42, { admin: true }] }, mapping())).toBeNull();
    expect(mappedRole({ groups: 42 }, mapping({ default: "clinician" }))).toBe("clinician");
  });

  it("reads a claim by its exact name first, else by a dotted path (Keycloak's realm_access.roles)", () => {
    const claims = { realm_access: { roles: ["cdis-admins"] }, "https://example.org/roles": ["cdis-clinicians"] };
    expect(mappedRole(claims, mapping({ claim: "realm_access.roles" }))).toBe("admin");
    expect(mappedRole(claims, mapping({ claim: "https://example.org/roles" }))).toBe("clinician");
    expect(claimAt(claims, "realm_access.missing")).toBeUndefined();
    expect(claimAt({ a: [{ b: 1 }] }, "a.0.b")).toBeUndefined();
    // Never the prototype's members.
    expect(claimAt({}, "constructor")).toBeUndefined();
    expect(claimAt({ a: {} }, "a.__proto__")).toBeUndefined();
  });
});

describe("email and domain", () => {
  it("takes the configured claim, lowercased; refuses none, a malformed one and email_verified false", () => {
    expect(emailOf({ email: " Dana@Example.ORG " }, "email")).toEqual({ ok: true, email: "dana@example.org", domain: "example.org" });
    expect(emailOf({ preferred_username: "lee@contoso.com" }, "preferred_username")).toMatchObject({ ok: true, email: "lee@contoso.com" });
    expect(emailOf({ email: "dana@example.org", email_verified: true }, "email")).toMatchObject({ ok: true });
    expect(emailOf({}, "email")).toMatchObject({ ok: false, code: "EMAIL_MISSING" });
    expect(emailOf({ email: "not-an-email" }, "email")).toMatchObject({ ok: false, code: "EMAIL_MISSING" });
    expect(emailOf({ email: ["a@b.org"] }, "email")).toMatchObject({ ok: false, code: "EMAIL_MISSING" });
    expect(emailOf({ email: "dana@example.org", email_verified: false }, "email")).toMatchObject({ ok: false, code: "EMAIL_NOT_VERIFIED" });
  });

  it("allows any domain with an empty list, else exactly those listed (a subdomain only by itself)", () => {
    expect(domainAllowed("example.org", [])).toBe(true);
    expect(domainAllowed("Example.ORG", ["example.org"])).toBe(true);
    expect(domainAllowed("example.org", ["@example.org."])).toBe(true);
    expect(domainAllowed("mail.example.org", ["example.org"])).toBe(false);
    expect(domainAllowed("example.org.evil.com", ["example.org"])).toBe(false);
    expect(domainAllowed("evilexample.org", ["example.org"])).toBe(false);
    expect(domainAllowed("mail.example.org", ["example.org", "mail.example.org"])).toBe(true);
  });

  it("names a new user from name, else given and family names, else the email", () => {
    expect(displayNameOf({ name: " Dana Doe " }, "d@x.org")).toBe("Dana Doe");
    expect(displayNameOf({ given_name: "Dana", family_name: "Doe" }, "d@x.org")).toBe("Dana Doe");
    expect(displayNameOf({}, "d@x.org")).toBe("d@x.org");
  });
});

describe("issuer rule", () => {
  const loopback = parseOutboundAllow("127.0.0.1, idp.hospital.internal").policy;

  it("accepts https to a public host, refuses other schemes, credentials, queries and fragments", () => {
    expect(issuerProblem("https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000/v2.0", PUBLIC_ONLY)).toBeUndefined();
    expect(issuerProblem("https://example.okta.com/oauth2/default", PUBLIC_ONLY)).toBeUndefined();
    expect(issuerProblem("ftp://idp.example.org", PUBLIC_ONLY)).toMatch(/https/);
    expect(issuerProblem("https://user:pw@idp.example.org", PUBLIC_ONLY)).toMatch(/credentials/);
    expect(issuerProblem("https://idp.example.org/?x=1", PUBLIC_ONLY)).toMatch(/query/);
    expect(issuerProblem("https://idp.example.org/#f", PUBLIC_ONLY)).toMatch(/fragment/);
    expect(issuerProblem("idp.example.org", PUBLIC_ONLY)).toMatch(/absolute/);
  });

  it("refuses plain http to a public host, and any host the outbound guard refuses", () => {
    expect(issuerProblem("http://idp.example.org", loopback)).toMatch(/must be https/);
    expect(issuerProblem("https://169.254.169.254/", PUBLIC_ONLY)).toMatch(/cannot be reached/);
    expect(issuerProblem("https://localhost:8443", PUBLIC_ONLY)).toMatch(/cannot be reached/);
    expect(issuerProblem("http://127.0.0.1:9000", PUBLIC_ONLY)).toMatch(/cannot be reached/);
  });

  it("accepts plain http only for a loopback or on-premises host OUTBOUND_ALLOW lists", () => {
    expect(issuerProblem("http://127.0.0.1:9000", loopback)).toBeUndefined();
    expect(issuerProblem("http://idp.hospital.internal/realms/cdis", loopback)).toBeUndefined();
    expect(issuerProblem("https://idp.hospital.internal/realms/cdis", loopback)).toBeUndefined();
    expect(issuerProblem("http://10.0.0.5", loopback)).toMatch(/cannot be reached/);
  });
});

describe("where a sign-in lands and starts", () => {
  it("lands on a path of this service only", () => {
    expect(safeReturnTo(undefined)).toBe("/");
    expect(safeReturnTo("/pipelines/p-1?tab=runs")).toBe("/pipelines/p-1?tab=runs");
    for (const bad of ["//evil.example", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "pipelines", "/a b", `/${"x".repeat(600)}`]) {
      expect(safeReturnTo(bad), bad).toBe("/");
    }
  });

  it("names the organization in the path, escaped", () => {
    expect(ssoPaths("org-1")).toEqual({ base: "/api/v1/auth/sso/org-1", start: "/api/v1/auth/sso/org-1/start", callback: "/api/v1/auth/sso/org-1/callback" });
    expect(ssoPaths("a/b").callback).toBe("/api/v1/auth/sso/a%2Fb/callback");
  });
});

describe("the migration to several identity providers per organization (control 0009)", () => {
  it("keeps each organization's one identity provider under a new id, and binds its pending sign-ins to it", async () => {
    const { DatabaseSync } = await import("node:sqlite");
    const { readdirSync, readFileSync } = await import("node:fs");
    const dir = new URL("../../../migrations/control/", import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith(".sql")).sort();
    const apply = (db: InstanceType<typeof DatabaseSync>, file: string) => {
      for (const statement of readFileSync(new URL(file, dir), "utf8").split("--> statement-breakpoint")) if (statement.trim()) db.exec(statement);
    };
    const db = new DatabaseSync(":memory:");
    const before = files.filter((f) => f < "0009");
    for (const f of before) apply(db, f);
    db.exec("INSERT INTO organizations (id, name, created_at) VALUES ('org-a', 'A', '2026-01-01'), ('org-b', 'B', '2026-01-01')");
    const idp = db.prepare(
      "INSERT INTO identity_providers (org_id, display_name, issuer, client_id, client_secret_enc, client_secret_hint, scopes, email_claim, role_mapping, allowed_domains, jit_provisioning, enabled, created_at, updated_at, updated_by) VALUES (?, ?, 'https://idp.example.org', ?, 'sealed', '****', '[\"openid\"]', 'email', '{}', '[]', 0, 1, '2026-01-01', '2026-01-02', NULL)",
    );
    idp.run("org-a", "Okta of A", "client-a");
    idp.run("org-b", "Entra of B", "client-b");
    db.exec(
      "INSERT INTO sso_states (state_hash, org_id, browser_hash, issuer, client_id, secrets_enc, redirect_uri, return_to, created_at, expires_at) VALUES ('s1', 'org-a', 'b', 'https://idp.example.org', 'client-a', 'x', 'r', '/', '2026-01-01', '2026-01-01')",
    );
    apply(db, files.find((f) => f.startsWith("0009")) as string);
    const rows = db.prepare("SELECT id, org_id, display_name, client_id, created_at, updated_at FROM identity_providers ORDER BY org_id").all() as Record<string, string>[];
    expect(rows.map(({ id: _id, ...r }) => r)).toEqual([
      { org_id: "org-a", display_name: "Okta of A", client_id: "client-a", created_at: "2026-01-01", updated_at: "2026-01-02" },
      { org_id: "org-b", display_name: "Entra of B", client_id: "client-b", created_at: "2026-01-01", updated_at: "2026-01-02" },
    ]);
    for (const r of rows) expect(r.id).toMatch(/^idp_[0-9a-f]{32}$/);
    expect(rows[0]?.id).not.toBe(rows[1]?.id);
    expect(db.prepare("SELECT idp_id FROM sso_states WHERE state_hash = 's1'").get()).toEqual({ idp_id: rows[0]?.id });
    // A second identity provider of an organization is now a row of its own.
    db.exec(
      "INSERT INTO identity_providers (id, org_id, display_name, issuer, client_id, client_secret_enc, client_secret_hint, scopes, email_claim, role_mapping, allowed_domains, jit_provisioning, enabled, created_at, updated_at) VALUES ('idp_2', 'org-a', 'Partners', 'https://p.example.org', 'c', 's', '****', '[]', 'email', '{}', '[]', 0, 1, '2026-02-01', '2026-02-01')",
    );
    expect(db.prepare("SELECT count(*) AS n FROM identity_providers WHERE org_id = 'org-a'").get()).toEqual({ n: 2 });
  });
});
