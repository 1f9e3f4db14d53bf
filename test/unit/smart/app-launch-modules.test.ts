// The plain modules of SMART App Launch: PKCE (S256 only), scope narrowing and words, the
// authorization request's checks (what is an error page, what goes back to the app), redirect
// URI rules, and the consent page's escaping and headers.
import { describe, expect, it } from "vitest";
import { checkAuthorizeRequest, redirectUriProblem, redirectWith } from "../../../src/features/smart/authorize/request";
import { escapeHtml, pageHeaders, renderConsentPage, renderErrorPage } from "../../../src/features/smart/consent-page";
import { challengeProblem, s256, verifierMatches } from "../../../src/features/smart/pkce";
import { describeScope, isAppScope, narrowScopes, refreshKindOf } from "../../../src/features/smart/scopes";
import { isSecretOf, newSecret } from "../../../src/features/smart/secrets";
import type { ClientApplicationRow } from "../../../src/features/smart/tables";

describe("PKCE", () => {
  it("takes RFC 7636's S256 example and refuses plain, a missing or malformed challenge, and a wrong verifier", async () => {
    // RFC 7636 Appendix B.
    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    expect(await s256(verifier)).toBe(challenge);
    expect(await verifierMatches(verifier, challenge)).toBe(true);
    expect(await verifierMatches(`${verifier}x`, challenge)).toBe(false);
    expect(await verifierMatches("short", challenge)).toBe(false);
    expect(await verifierMatches(undefined, challenge)).toBe(false);
    expect(challengeProblem(challenge, "S256")).toBeUndefined();
    expect(challengeProblem(challenge, "plain")).toContain("plain is not supported");
    expect(challengeProblem(challenge, undefined)).toContain("S256");
    expect(challengeProblem(undefined, "S256")).toContain("required");
    expect(challengeProblem("tooshort", "S256")).toContain("43");
  });
});

describe("scopes", () => {
  it("narrows a refresh to a subset of the grant, never wider", () => {
    const granted = ["launch/patient", "offline_access", "patient/Patient.rs", "patient/Observation.rs"];
    expect(narrowScopes(undefined, granted)).toEqual({ scopes: granted });
    expect(narrowScopes("  ", granted)).toEqual({ scopes: granted });
    expect(narrowScopes("patient/Patient.rs", granted)).toEqual({ scopes: ["patient/Patient.rs"] });
    expect(narrowScopes("patient/Patient.rs patient/Patient.cruds", granted)).toEqual({ beyond: ["patient/Patient.cruds"] });
    expect(narrowScopes("patient/*.rs", granted)).toEqual({ beyond: ["patient/*.rs"] });
  });

  it("tells offline from online, app scopes from system ones, and says each in words", () => {
    expect(refreshKindOf(["offline_access", "online_access"])).toBe("offline");
    expect(refreshKindOf(["online_access"])).toBe("online");
    expect(refreshKindOf(["patient/Patient.rs"])).toBeUndefined();
    expect(isAppScope("patient/Observation.rs?category=laboratory")).toBe(true);
    expect(isAppScope("user/*.cruds")).toBe(true);
    expect(isAppScope("system/Patient.rs")).toBe(false);
    expect(isAppScope("patient/Patient.")).toBe(false);
    expect(describeScope("patient/Observation.rs")).toBe("Read and search Observation records of the selected patient");
    expect(describeScope("user/*.cruds")).toBe("Create, read, update, delete and search all kinds of records that you can access");
    expect(describeScope("patient/*.read")).toBe("Read and search all kinds of records of the selected patient");
    expect(describeScope("offline_access")).toContain("after you sign out");
    expect(describeScope("<b>")).toContain("Unrecognized");
  });
});

const client = (over: Partial<ClientApplicationRow> = {}): ClientApplicationRow => ({
  accessPolicyId: null,
  id: "c1",
  orgId: "o1",
  name: "App",
  kind: "app",
  type: "public",
  secretHash: null,
  secretCreatedAt: null,
  redirectUris: ["https://app.example/cb"],
  grantTypes: ["authorization_code", "refresh_token"],
  launchUri: null,
  jwks: null,
  jwksUrl: null,
  scopes: ["launch", "launch/patient", "patient/Patient.rs", "offline_access"],
  status: "active",
  createdAt: "",
  createdBy: null,
  ...over,
});

const FHIR = "https://cdis.example/fhir/r4/o1";
const good = {
  response_type: ["code"],
  client_id: ["c1"],
  redirect_uri: ["https://app.example/cb"],
  scope: ["launch/patient patient/Patient.rs"],
  state: ["s1"],
  aud: [FHIR],
  code_challenge: ["E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"],
  code_challenge_method: ["S256"],
};

describe("the authorization request's checks", () => {
  it("shows a page, never a redirect, until the client and its exact redirect_uri are known", () => {
    expect(checkAuthorizeRequest({ ...good, client_id: [] }, undefined, FHIR).kind).toBe("page");
    expect(checkAuthorizeRequest(good, undefined, FHIR).kind).toBe("page");
    expect(checkAuthorizeRequest(good, client({ status: "disabled" }), FHIR).kind).toBe("page");
    expect(checkAuthorizeRequest({ ...good, redirect_uri: ["https://app.example/cb/"] }, client(), FHIR).kind).toBe("page");
    expect(checkAuthorizeRequest({ ...good, redirect_uri: ["https://app.example/cb", "https://evil.example"] }, client(), FHIR).kind).toBe("page");
    expect(checkAuthorizeRequest(good, client(), FHIR)).toMatchObject({ kind: "ok", request: { scopes: ["launch/patient", "patient/Patient.rs"], state: "s1" } });
    // A trailing slash on aud is the same base.
    expect(checkAuthorizeRequest({ ...good, aud: [`${FHIR}/`] }, client(), FHIR).kind).toBe("ok");
  });

  it("redirects each later refusal with its OAuth error and the state", () => {
    const error = (params: Record<string, string[]>, c = client()) => {
      const r = checkAuthorizeRequest({ ...good, ...params }, c, FHIR);
      return r.kind === "redirect" ? [r.error, r.state] : r.kind;
    };
    expect(error({ response_type: ["token"] })).toEqual(["unsupported_response_type", "s1"]);
    expect(error({}, client({ grantTypes: ["client_credentials"] }))).toEqual(["unauthorized_client", "s1"]);
    expect(error({ state: [] })).toEqual(["invalid_request", undefined]);
    expect(error({ aud: ["https://other.example/fhir"] })).toEqual(["invalid_request", "s1"]);
    expect(error({ aud: [] })).toEqual(["invalid_request", "s1"]);
    expect(error({ code_challenge_method: ["plain"] })).toEqual(["invalid_request", "s1"]);
    expect(error({ scope: ["patient/Observation.rs"] })).toEqual(["invalid_scope", "s1"]);
    expect(error({ scope: ["system/Patient.rs"] })).toEqual(["invalid_scope", "s1"]);
    expect(error({ scope: [""] })).toEqual(["invalid_scope", "s1"]);
    expect(error({ scope: ["launch patient/Patient.rs"] })).toEqual(["invalid_request", "s1"]);
    expect(error({ launch: ["ln_x"] })).toEqual(["invalid_scope", "s1"]);
    expect(error({ state: ["a", "b"] })).toEqual(["invalid_request", "a"]);
  });

  it("keeps the redirect_uri's own query and adds the answer's parameters", () => {
    expect(redirectWith("https://app.example/cb?x=1", { code: "c", state: "s&t", error: undefined })).toBe("https://app.example/cb?x=1&code=c&state=s%26t");
  });

  it("registers https redirect URIs and loopback http ones, without fragments or credentials", () => {
    expect(redirectUriProblem("https://app.example/cb")).toBeUndefined();
    expect(redirectUriProblem("http://127.0.0.1:8080/cb")).toBeUndefined();
    expect(redirectUriProblem("http://localhost/cb")).toBeUndefined();
    expect(redirectUriProblem("http://[::1]:9/cb")).toBeUndefined();
    expect(redirectUriProblem("http://app.example/cb")).toContain("https");
    expect(redirectUriProblem("http://localhost.evil.example/cb")).toContain("https");
    expect(redirectUriProblem("https://app.example/cb#x")).toContain("fragment");
    expect(redirectUriProblem("https://u:p@app.example/cb")).toContain("credentials");
    expect(redirectUriProblem("app.example/cb")).toContain("absolute");
    expect(redirectUriProblem("javascript:alert(1)")).toBeDefined();
  });
});

describe("the consent page", () => {
  const view = {
    clientName: `<img src=x onerror="alert(1)">`,
    organizationName: "Org & Co",
    userName: `Dana "D" O'Neil`,
    scopes: [{ scope: "patient/Observation.rs?code=<x>", words: "Read <things>" }],
    action: "https://cdis.example/fhir/r4/o1/auth/authorize/consent",
    requestId: `r"><script>`,
    csrf: "cf_token",
    picker: { query: `"><script>alert(1)</script>`, patients: [{ id: "p1", name: "<b>Bold</b>", birthDate: "1990-01-01" }] },
  };

  it("escapes every value it shows, and carries no script", () => {
    const html = renderConsentPage(view, "n0nce");
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<b>Bold");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).toContain("Dana &quot;D&quot; O&#39;Neil");
    expect(html).toContain("Org &amp; Co");
    expect(html).toContain('value="r&quot;&gt;&lt;script&gt;"');
    expect(html).toContain('<style nonce="n0nce">');
    expect(html).toContain('name="decision" value="approve"');
    expect(html).toContain('name="decision" value="deny"');
    expect(html).toContain('type="radio" name="patient" value="p1" checked');
    expect(renderErrorPage("<t>", "a & b", "n")).toContain("&lt;t&gt;");
    expect(escapeHtml("`'\"<>&")).toBe("&#96;&#39;&quot;&lt;&gt;&amp;");
  });

  it("sends a CSP that allows only its nonce'd style, forms to itself and the app's redirect, and no framing", () => {
    const h = pageHeaders("abc", ["https://app.example/cb?x=1"]);
    expect(h["content-security-policy"]).toBe("default-src 'none'; style-src 'nonce-abc'; form-action 'self' https://app.example/cb; frame-ancestors 'none'; base-uri 'none'");
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["cache-control"]).toBe("no-store");
    // A quote or semicolon in a registered URI cannot add a directive.
    expect(pageHeaders("abc", ["https://app.example/a';b"])["content-security-policy"]).not.toMatch(/';b/);
  });
});

describe("opaque credentials", () => {
  it("are 256 random bits under their kind's prefix, and recognized by shape", () => {
    const code = newSecret("code");
    expect(code).toMatch(/^ac_[A-Za-z0-9_-]{43}$/);
    expect(isSecretOf("code", code)).toBe(true);
    expect(isSecretOf("refresh", code)).toBe(false);
    expect(isSecretOf("code", `${code}x`)).toBe(false);
    expect(newSecret("code")).not.toBe(code);
  });
});
