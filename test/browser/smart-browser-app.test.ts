// SMART standalone launch with fhirclient's browser build in Chromium: the app is a page on
// another loopback origin (the suite's page server, listed in CORS_ORIGINS, serving
// test/browser/setup/smart-app/ and fhirclient's build/fhir-client.js unchanged), so its calls to
// the token endpoint and the FHIR API are cross-origin as a real app's are. FHIR.oauth2.authorize
// (BrowserAdapter, PKCE, state in sessionStorage) sends the browser to the org's authorization
// endpoint; without a console session it lands on the console's sign-in (return_to), the test
// plays the person (password sign-in, the consent screen's patient picker, Approve), the browser
// comes back to the app's redirect URI, FHIR.oauth2.ready() exchanges the code, and
// client.request("Patient/…") shows the picked patient in the page.
import type { Page } from "puppeteer-core";
import { describe, expect, inject, it } from "vitest";
import { consolePerTest, consoleUrl, expectAccessible, fileOrgs, screenshot, submitPasswordSignIn, textOf } from "./harness";

const consolePage = consolePerTest();
const PASSWORD = "correct horse battery staple";
const SCOPE = "launch/patient openid fhirUser patient/Patient.rs";

type Org = { orgId: string; adminKey: string };

async function api<T>(org: Org, path: string, body?: unknown, type = "application/json"): Promise<T> {
  const res = await fetch(`${consoleUrl()}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${org.adminKey}`, "x-organization-id": org.orgId, "content-type": type },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** An active user of `org` with PASSWORD (invited by its administrator, invitation accepted). */
async function user(org: Org, fhirUser: string): Promise<string> {
  const email = `smart.${crypto.randomUUID().slice(0, 8)}@example.org`;
  const invited = await api<{ invitation: { token: string } }>(org, "/api/v1/users/invitations", { email, name: "Sam Smart", role: "clinician", fhir_user: fhirUser });
  const accepted = await fetch(`${consoleUrl()}/api/v1/auth/invitations/accept`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: invited.invitation.token, password: PASSWORD }) });
  if (accepted.status !== 200) throw new Error(`accept answered ${accepted.status}`);
  return email;
}

const patient = (org: Org, family: string, given: string) => api<{ id: string }>(org, `/fhir/r4/${org.orgId}/Patient`, { resourceType: "Patient", name: [{ family, given: [given] }] }, "application/fhir+json");

/** The app's launch page: fhirclient's authorize() for this org's FHIR base. */
async function launchApp(page: Page, org: Org, clientId: string): Promise<void> {
  const app = inject("corsPages").allowed;
  const query = new URLSearchParams({ iss: `${consoleUrl()}/fhir/r4/${org.orgId}`, client_id: clientId, scope: SCOPE });
  await page.goto(`${app}/smart-app/launch.html?${query}`);
}

describe("a browser SMART app with fhirclient (standalone launch)", () => {
  it("authorize → sign-in → consent with the patient picked → redirect → ready() → the patient read and shown", async () => {
    const a = fileOrgs().orgA;
    const appOrigin = inject("corsPages").allowed;
    const redirect = `${appOrigin}/smart-app/callback.html`;
    const ada = await patient(a, "Browserapp", "Ada");
    await patient(a, "Browserapp", "Ben");
    const client = await api<{ id: string }>(a, "/api/v1/client-applications", { name: "Growth chart (browser)", type: "public", redirect_uris: [redirect], scopes: SCOPE.split(" ") });
    const email = await user(a, "Practitioner/browser-app");

    const page = await consolePage.open();
    await launchApp(page, a, client.id);
    // No console session: the authorization endpoint sends the person to the console's sign-in.
    await page.waitForFunction((base: string) => location.href.startsWith(`${base}/?return_to=`), { timeout: 20_000 }, consoleUrl());
    await Promise.all([page.waitForNavigation({ waitUntil: "networkidle0" }), submitPasswordSignIn(page, a.orgId, email, PASSWORD)]);
    // The consent screen (the service's page, under its own CSP), the patient searched and picked.
    await page.waitForFunction(() => location.pathname.endsWith("/auth/authorize") || location.pathname.endsWith("/auth/authorize/consent"), { timeout: 20_000 });
    expect(await textOf(page, "body")).toContain("Growth chart (browser)");
    await page.type("input[name=q]", "Browserapp");
    await Promise.all([page.waitForNavigation(), page.click("form[role=search] button[type=submit]")]);
    await page.waitForSelector(`input[name=patient][value="${ada.id}"]`);
    await screenshot(page, "smart-browser-app-consent");
    await expectAccessible(page);
    await page.click(`input[name=patient][value="${ada.id}"]`);
    await Promise.all([page.waitForNavigation(), page.click("button[name=decision][value=approve]")]);

    // Back at the app: ready() exchanged the code (cross-origin, CORS) and read the patient.
    await page.waitForFunction(() => document.getElementById("status")?.dataset.state !== undefined, { timeout: 20_000 });
    const shown = await page.evaluate(() => ({
      url: location.href,
      state: document.getElementById("status")?.dataset.state,
      status: document.getElementById("status")?.textContent,
      name: document.getElementById("patient-name")?.textContent,
      id: document.getElementById("patient-id")?.textContent,
      stored: Object.keys(sessionStorage),
    }));
    expect(shown.state, shown.status ?? "").toBe("ready");
    expect(shown.url.startsWith(redirect)).toBe(true);
    expect(shown.name).toBe("Ada Browserapp");
    expect(shown.id).toBe(ada.id);
    expect(shown.status).toBe("Signed in as Practitioner/browser-app");
    // fhirclient's BrowserAdapter kept its state in the app origin's sessionStorage.
    expect(shown.stored).toContain("SMART_KEY");
    await screenshot(page, "smart-browser-app-ready");
  });

  it("another organization's client is unknown at this org's authorization endpoint: an error page, no redirect to the app", async () => {
    const { orgA: a, orgB: b } = fileOrgs();
    const redirect = `${inject("corsPages").allowed}/smart-app/callback.html`;
    const theirs = await api<{ id: string }>(b, "/api/v1/client-applications", { name: "Their app", type: "public", redirect_uris: [redirect], scopes: SCOPE.split(" ") });
    const page = await consolePage.open();
    await launchApp(page, a, theirs.id);
    await page.waitForFunction((base: string) => location.href.startsWith(`${base}/fhir/r4/`), { timeout: 20_000 }, consoleUrl());
    await page.waitForSelector("h1");
    expect(page.url().startsWith(consoleUrl())).toBe(true);
    expect(await textOf(page, "body")).toMatch(/unknown|not registered|not found/i);
  });
});
