// "Launch app" on a patient (SMART EHR launch) in Chromium: the patient page offers the
// organization's launchable apps to a clinician; launching opens the app's launch URL in a new tab
// with the org's FHIR base as `iss` and a one-time `launch` bound to that patient. The app's side
// (authorize, consent, token) is tested in test/smart/app-launch.test.ts and with fhirclient.
import { describe, expect, inject, it } from "vitest";
import { adminApi, consolePerTest, consoleUrl, fileOrgs, signIn, visit } from "./harness";

const consolePage = consolePerTest();

describe("launch an app for the open patient", () => {
  it("opens the app's launch URL with iss and a launch value; an org without such apps shows no control", async () => {
    const a = fileOrgs().orgA;
    const appOrigin = inject("corsPages").allowed;
    const name = `Growth chart ${crypto.randomUUID().slice(0, 4)}`;
    const app = await adminApi("/api/v1/client-applications", { name, type: "public", scopes: ["launch", "patient/Patient.rs"], redirect_uris: [`${appOrigin}/callback`], launch_uri: `${appOrigin}/launch` });
    const patient = (await (
      await fetch(`${consoleUrl()}/fhir/r4/${a.orgId}/Patient`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.adminKey}`, "x-organization-id": a.orgId, "content-type": "application/fhir+json" },
        body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Launchable", given: ["Lia"] }] }),
      })
    ).json()) as { id: string };

    const page = await consolePage.open();
    await signIn(page, a.orgId, a.clinicianKey);
    await visit(page, `/patients/${patient.id}`);
    await page.waitForSelector("button[data-action=launch-app]");
    const optionValue = await page.$$eval("select[name=launch-app] option", (opts, wanted) => opts.find((o) => o.textContent === wanted)?.getAttribute("value") ?? "", name);
    expect(optionValue).not.toBe("");
    await page.select("select[name=launch-app]", optionValue);
    const [target] = await Promise.all([page.browserContext().waitForTarget((t) => t.url().startsWith(`${appOrigin}/launch`)), page.click("button[data-action=launch-app]")]);
    const opened = new URL(target.url());
    expect(opened.searchParams.get("iss")).toMatch(new RegExp(`/fhir/r4/${a.orgId}$`));
    expect(opened.searchParams.get("launch")).toMatch(/.{16,}/);

    // Organization B has no launchable app: its patient page shows no control.
    const b = fileOrgs().orgB;
    const theirs = (await (
      await fetch(`${consoleUrl()}/fhir/r4/${b.orgId}/Patient`, {
        method: "POST",
        headers: { authorization: `Bearer ${b.adminKey}`, "x-organization-id": b.orgId, "content-type": "application/fhir+json" },
        body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Elsewhere" }] }),
      })
    ).json()) as { id: string };
    const other = await consolePage.open();
    await signIn(other, b.orgId, b.adminKey);
    await Promise.all([other.waitForResponse((r) => r.url().endsWith("/api/v1/smart/launchable-apps")), visit(other, `/patients/${theirs.id}`)]);
    await other.waitForSelector("h1");
    expect(await other.$("button[data-action=launch-app]")).toBeNull();
    // Gone again, so other files' patient pages show what they expect.
    await fetch(`${consoleUrl()}/api/v1/client-applications/${app.id}`, { method: "DELETE", headers: { authorization: `Bearer ${a.adminKey}`, "x-organization-id": a.orgId } });
  });
});
