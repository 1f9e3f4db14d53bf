// Settings pages: connectors (credentials write-only: typed once, listed masked), organization
// limits with current usage, and the audit log (paged, filtered) showing what the console did.
import { describe, expect, inject, it } from "vitest";
import { consolePerTest, expectAccessible, fileOrgs, navLinks, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

describe("Settings pages", () => {
  it("creates a connector whose credentials are never shown back, then deletes it", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/settings/connectors");
    await page.waitForSelector("form[aria-label='New connector'] select[name=type] option");
    await screenshot(page, "connectors");
    await expectAccessible(page);

    const form = "form[aria-label='New connector']";
    const types = await page.$$eval(`${form} select[name=type] option`, (os) => os.map((o) => (o as HTMLOptionElement).value));
    await page.select(`${form} select[name=type]`, types.includes("fhir") ? "fhir" : (types[0] ?? ""));
    await page.type(`${form} input[name=name]`, "Regional HIE");
    await page.type(`${form} input[name=endpoint]`, "https://hie.example.org/fhir");
    await page.select(`${form} select[name=auth_kind]`, "bearer");
    const secret = "s3cr3t-token-never-shown-again";
    await page.type(`${form} input[name=token]`, secret);
    await page.click(`${form} button[type=submit]`);
    await page.waitForFunction(() => /Regional HIE/.test(document.querySelector("main tbody")?.textContent ?? ""));
    expect(await page.$eval(`${form} input[name=token]`, (el) => (el as HTMLInputElement).value)).toBe("");
    expect(await page.content()).not.toContain(secret);
    await screenshot(page, "connectors-created");
    await expectAccessible(page);

    // The API's own refusal is shown: an endpoint that is not a URL.
    await page.type(`${form} input[name=name]`, "Broken");
    await page.type(`${form} input[name=endpoint]`, "not a url");
    await page.type(`${form} input[name=token]`, "x");
    await page.click(`${form} button[type=submit]`);
    expect(await textOf(page, "main [role=alert]")).toMatch(/endpoint/i);

    page.once("dialog", (d) => void d.accept());
    await page.click("xpath/.//button[normalize-space()='Delete Regional HIE']");
    await page.waitForFunction(() => !/Regional HIE/.test(document.querySelector("main tbody")?.textContent ?? ""));
  });

  it("shows the organization's limits and current usage", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/settings/organization");
    const table = await textOf(page, "main table");
    expect(table).toContain("API requests per minute");
    expect(table).toMatch(/Concurrent pipeline executions\d+\d+/);
    await screenshot(page, "organization");
    await expectAccessible(page);
  });

  it("pages and filters the audit log", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const base = inject("consoleUrl");
    for (let i = 0; i < 3; i++)
      await fetch(`${base}/api/api-keys`, { method: "POST", headers: { authorization: `Bearer ${adminKey}`, "x-organization-id": orgId, "content-type": "application/json" }, body: JSON.stringify({ name: `audited-${i}`, role: "service" }) });
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/settings/audit");
    await page.waitForSelector("main tbody tr");
    await screenshot(page, "audit-log");
    await expectAccessible(page);

    await page.type("form[aria-label='Filter the audit log'] input[name=action]", "api_key.create");
    await page.click("form[aria-label='Filter the audit log'] button[type=submit]");
    await page.waitForFunction(() => Array.from(document.querySelectorAll("main tbody tr")).every((tr) => tr.textContent?.includes("api_key.create")));
    const rows = await page.$$eval("main tbody tr", (trs) => trs.length);
    expect(rows).toBeGreaterThanOrEqual(3);
    await page.select("form[aria-label='Filter the audit log'] select[name=outcome]", "failure");
    await page.click("form[aria-label='Filter the audit log'] button[type=submit]");
    await page.waitForFunction(() => /No audit events match/.test(document.querySelector("main")?.textContent ?? ""));
  });

  it("hides the audit log, connectors and integrations' settings from a clinician", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const clinician = await consolePage.open();
    await signIn(clinician, orgId, clinicianKey);
    expect(await navLinks(clinician)).not.toContain("Audit log");
    await visit(clinician, "/settings/audit");
    expect(await textOf(clinician, "main h1")).toBe("Not allowed");
    expect(await navLinks(clinician)).not.toContain("Connectors");
    await visit(clinician, "/settings/connectors");
    expect(await textOf(clinician, "main h1")).toBe("Not allowed");
  });
});
