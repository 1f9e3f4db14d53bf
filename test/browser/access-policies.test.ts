// The Access policies page in a real browser: rules typed as JSON are checked as typed, a rule the
// service refuses (criteria it cannot evaluate) is shown with its reason, a valid policy is saved
// and assigned to an API key, which then reaches only what the policy allows; a policy in use
// cannot be deleted until it is unassigned. Administrators only.
import { describe, expect, it } from "vitest";
import { consolePerTest, consoleUrl, fileOrgs, replaceText, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

describe("Access policies page", () => {
  it("checks rules, shows the service's refusal, saves, assigns to a key that then reaches Patients only, and deletes once unassigned", async () => {
    const a = fileOrgs().orgA;
    const headers = { authorization: `Bearer ${a.adminKey}`, "x-organization-id": a.orgId, "content-type": "application/json" };
    const keyName = `policy-key-${crypto.randomUUID().slice(0, 6)}`;
    const key = (await (await fetch(`${consoleUrl()}/api/api-keys`, { method: "POST", headers, body: JSON.stringify({ name: keyName, role: "clinician" }) })).json()) as { id: string; key: string };
    const name = `Demographics only ${crypto.randomUUID().slice(0, 4)}`;

    const page = await consolePage.open();
    page.on("dialog", (d) => void d.accept());
    await signIn(page, a.orgId, a.adminKey);
    await visit(page, "/settings/access-policies");
    await page.waitForSelector("h1");
    await page.click("main button");
    await page.waitForSelector("form[aria-label='Create an access policy']");
    await page.type("input[name=name]", name);
    // Not JSON: said at once, and Create stays disabled.
    await replaceText(page, "textarea[name=rules]", "[{");
    expect(await textOf(page, "[data-rules-problem]")).toMatch(/^Not JSON/);
    expect(await page.$eval("form[aria-label='Create an access policy'] button[type=submit]", (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    // Criteria with a chain: the service refuses it with the reason.
    await replaceText(page, "textarea[name=rules]", JSON.stringify([{ resource_type: "Observation", criteria: "Observation?subject.name=x" }]));
    await Promise.all([page.waitForResponse((r) => r.url().endsWith("/api/v1/access-policies") && r.request().method() === "POST"), page.click("form[aria-label='Create an access policy'] button[type=submit]")]);
    await page.waitForSelector("form[aria-label='Create an access policy'] [role=alert]");
    expect(await textOf(page, "form[aria-label='Create an access policy'] [role=alert]")).toMatch(/criteria|chain/i);
    // A valid one.
    await replaceText(page, "textarea[name=rules]", JSON.stringify([{ resource_type: "Patient", readonly: true }]));
    await Promise.all([page.waitForResponse((r) => r.url().endsWith("/api/v1/access-policies") && r.status() === 201), page.click("form[aria-label='Create an access policy'] button[type=submit]")]);
    await page.waitForSelector(`tr[data-policy="${name}"]`);
    expect(await textOf(page, `tr[data-policy="${name}"]`)).toContain("Patient (read-only)");

    // Assign it to the key; the key then reads Patients and no Observations, and writes nothing.
    await page.waitForSelector("form[aria-label='Assign the policy'] select[name=assignee] option + option");
    const optionValue = await page.$$eval("select[name=assignee] option", (opts, wanted) => opts.find((o) => o.textContent === wanted)?.getAttribute("value") ?? "", keyName);
    expect(optionValue).toBe(key.id);
    await page.select("select[name=assignee]", key.id);
    await Promise.all([page.waitForResponse((r) => r.url().includes(`/assignments/api-keys/${key.id}`)), page.click("form[aria-label='Assign the policy'] button[type=submit]")]);
    await page.waitForSelector(`[data-assignee="api-keys/${key.id}"]`);
    const asKey = (path: string, init: RequestInit = {}) => fetch(`${consoleUrl()}/fhir/r4/${a.orgId}/${path}`, { ...init, headers: { authorization: `Bearer ${key.key}`, "x-organization-id": a.orgId, "content-type": "application/fhir+json" } });
    expect((await asKey("Patient?_count=1")).status).toBe(200);
    expect((await asKey("Observation?_count=1")).status).toBe(403);
    expect((await asKey("Patient", { method: "POST", body: JSON.stringify({ resourceType: "Patient" }) })).status).toBe(403);

    // In use: deleting is refused until it is unassigned.
    await page.click(`tr[data-policy="${name}"] button:last-child`);
    await page.waitForFunction(() => /in use|assigned/i.test(document.querySelector("main > [role=alert]")?.textContent ?? ""));
    await Promise.all([page.waitForResponse((r) => r.request().method() === "DELETE" && r.url().includes("/assignments/")), page.click(`[data-assignee="api-keys/${key.id}"] button`)]);
    await page.waitForFunction((sel) => !document.querySelector(sel), {}, `[data-assignee="api-keys/${key.id}"]`);
    await Promise.all([page.waitForResponse((r) => r.request().method() === "DELETE" && r.status() === 200 && !r.url().includes("/assignments/")), page.click(`tr[data-policy="${name}"] button:last-child`)]);
    await page.waitForFunction((sel) => !document.querySelector(sel), {}, `tr[data-policy="${name}"]`);
    expect((await asKey("Observation?_count=1")).status).toBe(200);
  });
});
