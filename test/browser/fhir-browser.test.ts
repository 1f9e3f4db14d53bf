// FHIR browser: search Patients by name from the CapabilityStatement's types and parameters, open
// one, its history after an update (each version opens), follow an Observation's subject reference
// to its Patient, page with the Bundle's links, the OperationOutcome's diagnostics on a bad search,
// another organization's id not found, and a key without fhir:read refused; a Patient edited with
// $validate's issues beside the editor, saved with If-Match, a version conflict said in words, two
// versions diffed, and a Patient created.
import { describe, expect, inject, it } from "vitest";
import { adminApi, consolePerTest, expectAccessible, fileOrgs, navLinks, otherOrgPatient, replaceText, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

/** A patient updated once (so two versions) with three Observations about it. */
async function patientWithObservations(family: string): Promise<{ patientId: string; observationIds: string[] }> {
  const { orgId } = fileOrgs().orgA;
  const base = `/fhir/r4/${orgId}`;
  const patient = await adminApi(`${base}/Patient`, { resourceType: "Patient", name: [{ family: `${family}-draft`, given: ["Ada"] }], birthDate: "1970-01-02" });
  await updatePatient(String(patient.id), family);
  const observationIds: string[] = [];
  for (const value of [61, 72, 83]) {
    const obs = await adminApi(`${base}/Observation`, {
      resourceType: "Observation",
      status: "final",
      code: { coding: [{ system: "http://loinc.org", code: "8867-4", display: "Heart rate" }], text: "Heart rate" },
      subject: { reference: `Patient/${patient.id}` },
      valueQuantity: { value, unit: "beats/minute", system: "http://unitsofmeasure.org", code: "/min" },
    });
    observationIds.push(String(obs.id));
  }
  return { patientId: String(patient.id), observationIds };
}

/** Another writer's update of the Patient (organization A's administrator, through the API). */
async function updatePatient(id: string, family: string): Promise<void> {
  const { orgId, adminKey } = fileOrgs().orgA;
  const res = await fetch(`${inject("consoleUrl")}/fhir/r4/${orgId}/Patient/${id}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${adminKey}`, "x-organization-id": orgId, "content-type": "application/fhir+json" },
    body: JSON.stringify({ resourceType: "Patient", id, name: [{ family, given: ["Ada"] }], birthDate: "1970-01-02" }),
  });
  expect(res.status).toBe(200);
}

const editorText = "textarea[name=resource-json]";
const editedPatient = (id: string, family: string, birthDate: string) => JSON.stringify({ resourceType: "Patient", id, name: [{ family, given: ["Ada"] }], birthDate });

describe("FHIR browser", () => {
  it("searches Patients by name, opens one, shows its history and each version", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const { patientId } = await patientWithObservations("Browsewell");
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    expect(await navLinks(page)).toContain("FHIR browser");
    await page.click("nav[aria-label=Main] a[href='/fhir-browser']");
    await page.waitForSelector("select[name=type] option[value=Observation]");
    expect(await textOf(page, "main")).toContain("Choose a resource type");
    await page.select("select[name=type]", "Patient");
    // The type's search parameters come from the CapabilityStatement.
    await page.waitForSelector("#fhir-search-params option[value=family]");
    await page.type("input[name=param-name]", "name");
    await page.type("input[name=param-value]", "Browsewell");
    await page.click("form[aria-label='Search FHIR resources'] button[type=submit]");
    await page.waitForFunction(() => document.querySelectorAll("main tbody tr").length === 1);
    expect(new URL(page.url()).pathname).toBe("/fhir-browser/Patient");
    expect(new URL(page.url()).searchParams.get("name")).toBe("Browsewell");
    expect(await textOf(page, "main tbody")).toContain("Ada Browsewell");
    await screenshot(page, "fhir-search");
    await expectAccessible(page);

    await page.click(`main tbody a[href='/fhir-browser/Patient/${patientId}']`);
    await page.waitForSelector("pre.resource-json");
    expect(await textOf(page, "main h1")).toBe(`Patient/${patientId}`);
    expect(await textOf(page, "pre.resource-json")).toContain('"family": "Browsewell"');
    await page.waitForFunction(() => document.querySelectorAll("section[aria-labelledby=history-heading] tbody tr").length === 2);
    const versions = await page.$$eval("section[aria-labelledby=history-heading] tbody tr", (trs) => trs.map((tr) => tr.textContent ?? ""));
    expect(versions[0]).toMatch(/^Version 2 \(shown\)PUT/);
    expect(versions[1]).toMatch(/^Version 1POST/);
    await screenshot(page, "fhir-resource");
    await expectAccessible(page);

    await page.click(`a[href='/fhir-browser/Patient/${patientId}/_history/1']`);
    await page.waitForFunction(() => /version 1$/.test(document.querySelector("main h1")?.textContent ?? ""));
    await page.waitForFunction(() => /Browsewell-draft/.test(document.querySelector("pre.resource-json")?.textContent ?? ""));
    await screenshot(page, "fhir-resource-version");
    await expectAccessible(page);
  });

  it("follows an Observation's subject reference to its Patient and pages with the Bundle's links", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const { patientId, observationIds } = await patientWithObservations("Referencer");
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    await visit(page, `/fhir-browser/Observation?subject=Patient/${patientId}&_count=2&_sort=_lastUpdated`);
    await page.waitForFunction(() => document.querySelectorAll("main tbody tr").length === 2);
    // The form shows the search it came from.
    expect(await page.$eval("input[name=param-value]", (el) => (el as HTMLInputElement).value)).toBe(`Patient/${patientId}`);
    expect(await page.$eval("input[name=_count]", (el) => (el as HTMLInputElement).value)).toBe("2");
    const firstPage = await page.$$eval("main tbody a", (as) => as.map((a) => a.textContent ?? ""));
    expect(firstPage).toEqual(observationIds.slice(0, 2).map((id) => `Observation/${id}`));
    await page.click("nav[aria-label='Observation results pages'] button:last-child");
    await page.waitForFunction(() => document.querySelectorAll("main tbody tr").length === 1);
    expect(await textOf(page, "main tbody")).toContain(`Observation/${observationIds[2]}`);
    expect(new URL(page.url()).searchParams.get("_cursor")).toBeTruthy();
    await page.click("nav[aria-label='Observation results pages'] button:first-child");
    await page.waitForFunction(() => document.querySelectorAll("main tbody tr").length === 2);

    await page.click(`main tbody a[href='/fhir-browser/Observation/${observationIds[0]}']`);
    await page.waitForSelector(`pre.resource-json a[href='/fhir-browser/Patient/${patientId}']`);
    await screenshot(page, "fhir-observation");
    await expectAccessible(page);
    await page.click(`pre.resource-json a[href='/fhir-browser/Patient/${patientId}']`);
    await page.waitForFunction((id) => document.querySelector("main h1")?.textContent === `Patient/${id}`, {}, patientId);
    // The page is keyed by the resource, so the Observation's JSON never shows under the Patient's heading.
    await page.waitForSelector("pre.resource-json");
    expect(await textOf(page, "pre.resource-json")).toContain('"family": "Referencer"');
  });

  it("shows the OperationOutcome's diagnostics for a bad search and an empty state for no matches", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    await visit(page, "/fhir-browser/Patient?birthdate=not-a-date");
    const alert = await textOf(page, "main [role=alert]");
    expect(alert).toMatch(/^Something went wrong/);
    expect(alert).toMatch(/birthdate|not-a-date/);
    await screenshot(page, "fhir-search-error");
    await expectAccessible(page);
    await visit(page, "/fhir-browser/Patient?name=Nobody-by-this-name");
    expect(await textOf(page, "main .empty h2")).toBe("No Patient found");
  });

  it("shows not-found for another organization's resource id", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const theirs = await otherOrgPatient("Elsewhere");
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, `/fhir-browser/Patient/${theirs}`);
    const alert = await textOf(page, "main [role=alert]");
    expect(alert).toMatch(/^Not found/);
    expect(alert).not.toContain("Elsewhere");
    await visit(page, `/fhir-browser/Patient/${theirs}/_history/1`);
    expect(await textOf(page, "main [role=alert]")).toMatch(/^Not found/);
  });

  it("a key without fhir:read sees no link, the page says not allowed, and the API answers 403", async () => {
    const { orgId } = fileOrgs().orgA;
    const agent = await adminApi("/api/agents", { template_id: "template-clinical_assistant", name: "FHIR-less bot" });
    const created = await adminApi("/api/api-keys", { name: "Agent only", role: "clinician", scopes: [`agent/${agent.id}:execute`] });
    const page = await consolePage.open();
    await signIn(page, orgId, String(created.key));
    expect(await navLinks(page)).not.toContain("FHIR browser");
    await visit(page, "/fhir-browser/Patient");
    expect(await textOf(page, "main h1")).toBe("Not allowed");
    expect(await page.evaluate(async (org) => (await fetch(`/fhir/r4/${org}/Patient`)).status, orgId)).toBe(403);
  });

  it("edits a Patient with $validate's issues beside the editor, saves with If-Match, explains a conflict, diffs versions and creates one", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const { patientId } = await patientWithObservations("Editwell");
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    await visit(page, `/fhir-browser/Patient/${patientId}`);
    await page.waitForSelector("pre.resource-json");
    await page.click("main button::-p-text(Edit)");
    await page.waitForSelector(editorText);
    // Invalid: $validate's issues are listed by field path next to the JSON, and nothing is saved.
    await replaceText(page, editorText, editedPatient(patientId, "Editwell", "not-a-date"));
    await page.click("section.resource-editor button::-p-text(Save)");
    await page.waitForSelector("ul[aria-label='Validation issues'] li");
    expect(await textOf(page, "ul[aria-label='Validation issues']")).toContain('Patient.birthDate Invalid date value "not-a-date"');
    await screenshot(page, "fhir-edit-issues");
    await expectAccessible(page);

    await replaceText(page, editorText, editedPatient(patientId, "Editwell-saved", "1970-01-03"));
    await page.click("section.resource-editor button::-p-text(Validate)");
    await page.waitForFunction(() => /No issues found/.test(document.querySelector(".validation-panel")?.textContent ?? ""));
    await page.click("section.resource-editor button::-p-text(Save)");
    await page.waitForFunction(() => /Saved as version 3/.test(document.querySelector("main [role=status]")?.textContent ?? ""));
    await page.waitForFunction(() => /Editwell-saved/.test(document.querySelector("pre.resource-json")?.textContent ?? ""));

    // Someone else saves version 4 while this page still edits version 3: refused, said in words, the edits kept.
    await page.click("main button::-p-text(Edit)");
    await page.waitForSelector(editorText);
    await updatePatient(patientId, "Editwell-elsewhere");
    await replaceText(page, editorText, editedPatient(patientId, "Editwell-mine", "1970-01-03"));
    await page.click("section.resource-editor button::-p-text(Save)");
    await page.waitForSelector(".validation-panel [role=alert]");
    expect(await textOf(page, ".validation-panel [role=alert]")).toBe(
      "Not saved: someone else changed this Patient after you opened version 3, and it is now at version 4. Your edits are still here; open the current version to see that change, then apply yours to it.",
    );
    expect(await page.$eval(editorText, (el) => (el as HTMLTextAreaElement).value)).toContain("Editwell-mine");
    await expectAccessible(page);

    // The history's versions compared: 1 (the draft) to 4 (the other writer's).
    await visit(page, `/fhir-browser/Patient/${patientId}`);
    await page.waitForFunction(() => document.querySelectorAll("section[aria-labelledby=history-heading] tbody tr").length === 4);
    await page.select("select[name=diff-from]", "1");
    await page.select("select[name=diff-to]", "4");
    await page.click("form[aria-label='Compare versions'] button[type=submit]");
    await page.waitForSelector("pre.json-diff");
    const removed = await page.$$eval("pre.json-diff del", (ds) => ds.map((d) => d.textContent ?? ""));
    const added = await page.$$eval("pre.json-diff ins", (ds) => ds.map((d) => d.textContent ?? ""));
    expect(removed.some((l) => /^- +"family": "Editwell-draft"/.test(l))).toBe(true);
    expect(added.some((l) => /^\+ +"family": "Editwell-elsewhere"/.test(l))).toBe(true);
    expect(removed.some((l) => l.includes('"versionId": "1"'))).toBe(true);
    expect(await textOf(page, "figure[aria-label='Differences from version 1 to version 4'] figcaption")).toMatch(/^Version 1 → 4: \d+ lines added, \d+ removed$/);
    await screenshot(page, "fhir-version-diff");
    await expectAccessible(page);

    // Create: a new Patient from the search page, validated, then opened.
    await visit(page, "/fhir-browser/Patient");
    await page.click("main button::-p-text(New Patient)");
    await page.waitForSelector(editorText);
    await replaceText(page, editorText, JSON.stringify({ resourceType: "Patient", name: [{ family: "Createwell" }], gender: "female" }));
    await page.click("section.resource-editor button::-p-text(Create)");
    await page.waitForFunction(() => /^\/fhir-browser\/Patient\/[^/]+$/.test(location.pathname) && /Createwell/.test(document.querySelector("pre.resource-json")?.textContent ?? ""));
    expect(await textOf(page, "main p.muted")).toMatch(/^Version 1 /);
  });
});
