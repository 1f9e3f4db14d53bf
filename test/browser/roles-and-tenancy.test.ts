// What a role may not do is hidden and refused, and another organization's ids are not found.
import { describe, expect, inject, it } from "vitest";
import { consolePerTest, expectAccessible, fileOrgs, navLinks, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

async function createPipeline(base: string, org: { orgId: string; adminKey: string }, name: string): Promise<string> {
  const res = await fetch(`${base}/api/pipelines`, {
    method: "POST",
    headers: { authorization: `Bearer ${org.adminKey}`, "x-organization-id": org.orgId, "content-type": "application/json" },
    body: JSON.stringify({ name, definition: { nodes: [{ id: "start", type: "control.manual_trigger", config: {} }], connections: [] } }),
  });
  if (res.status !== 201) throw new Error(`pipeline create answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

describe("roles and tenancy in the console", () => {
  it("a clinician sees no settings: the link is hidden, the page says not allowed, and the API answers 403", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    expect(await navLinks(page)).toEqual(expect.arrayContaining(["Overview", "Pipelines", "Executions", "Agents"]));
    expect(await navLinks(page)).not.toEqual(expect.arrayContaining(["API keys"]));
    expect(await navLinks(page)).not.toContain("Connectors");
    expect(await navLinks(page)).not.toContain("Audit log");
    await visit(page, "/settings/api-keys");
    expect(await textOf(page, "main h1")).toBe("Not allowed");
    await screenshot(page, "clinician-settings-refused");
    await expectAccessible(page);
    const status = await page.evaluate(async () => (await fetch("/api/api-keys")).status);
    expect(status).toBe(403);
    // Inbound messages are for administrators: hidden above, refused here and by the API.
    await visit(page, "/messages");
    expect(await textOf(page, "main h1")).toBe("Not allowed");
    expect(await page.evaluate(async () => (await fetch("/api/hl7/messages")).status)).toBe(403);
  });

  it("another organization's pipeline id in the URL shows not found; the org's own shows its page", async () => {
    const a = fileOrgs().orgA;
    const b = fileOrgs().orgB;
    const base = inject("consoleUrl");
    const theirs = await createPipeline(base, b, "B's intake");
    const ours = await createPipeline(base, a, "A's intake");
    const page = await consolePage.open();
    await signIn(page, a.orgId, a.adminKey);

    await visit(page, `/pipelines/${theirs}`);
    const refused = await textOf(page, "[role=alert]");
    expect(refused).toMatch(/^Not found/);
    expect(refused).not.toContain("B's intake");
    await screenshot(page, "cross-tenant-not-found");
    await expectAccessible(page);

    await visit(page, "/pipelines");
    expect(await textOf(page, "main table")).toContain("A's intake");
    expect(await textOf(page, "main table")).not.toContain("B's intake");
    await screenshot(page, "pipelines");
    await expectAccessible(page);
    await page.click(`a[href="/pipelines/${ours}"]`);
    await page.waitForFunction(() => document.querySelector("main h1")?.textContent === "A's intake");
    await screenshot(page, "pipeline-detail");
    await expectAccessible(page);
  });
});
