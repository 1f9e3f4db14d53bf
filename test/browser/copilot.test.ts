// The copilot panel in the pipeline editor, against the suite's fake OpenAI-compatible model
// (setup/fake-copilot.ts): a pipeline generated from a description, its changes and validation
// shown before Apply, applied and saved; a change to the open pipeline proposed, applied, undone,
// applied again and saved; the model's failure shown as the API's message; hidden (and refused by
// the API) for a clinician.
import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { adminApi, consolePerTest, consoleUrl, expectAccessible, fileOrgs, replaceText, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();
const PANEL = "section[aria-label=Copilot]";

async function ask(page: Page, request: string): Promise<void> {
  await replaceText(page, `${PANEL} textarea`, request);
  await page.click(`${PANEL} > button`);
}

async function clickButton(page: Page, scope: string, label: string): Promise<void> {
  await page.evaluate(
    (s, l) => (Array.from(document.querySelectorAll(`${s} button`)).find((b) => b.textContent === l) as HTMLButtonElement).click(),
    scope,
    label,
  );
}

const nodeIds = (page: Page) => page.$$eval(".node-card", (cards) => cards.map((c) => c.getAttribute("data-node-id")).sort());

describe("copilot panel", () => {
  it("generates a pipeline, shows its validation before applying, and modifies the open pipeline", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/pipelines/new");
    await page.waitForSelector(PANEL);
    expect(await textOf(page, `${PANEL} label`)).toContain("Describe the pipeline to generate");

    // A request the model cannot meet: the service's 422 message is shown as it is.
    await ask(page, "Translate discharge letters to French");
    await page.waitForSelector(`${PANEL} .error[role=alert]`, { timeout: 30_000 });
    expect(await textOf(page, `${PANEL} .error[role=alert]`)).toMatch(/did not produce a valid pipeline definition in 3 attempts/);

    // A description it can: the proposal, its changes and the service's verdict, the canvas untouched.
    await ask(page, "Greet the caller by name");
    await page.waitForSelector(`${PANEL} .copilot-proposal`, { timeout: 30_000 });
    expect(await page.$(`${PANEL} .error[role=alert]`)).toBeNull();
    const changes = await textOf(page, "ul[aria-label='Changes the copilot proposes']");
    expect(changes).toContain("/nodes/0");
    expect(changes).toContain("data.transform");
    expect(await textOf(page, `${PANEL} .copilot-proposal [role=status]`)).toBe("The service accepts this definition.");
    expect(await nodeIds(page)).toEqual([]);
    await screenshot(page, "copilot-proposal");
    await expectAccessible(page);

    // Apply puts it on the canvas; save stores it as version 1.
    await clickButton(page, PANEL, "Apply to the canvas");
    await page.waitForSelector(".node-card[data-node-id=greet]");
    expect(await nodeIds(page)).toEqual(["greet", "start"]);
    expect(await page.$eval(".editor-bar input", (el) => (el as HTMLInputElement).value)).toBe("Greeting");
    await page.waitForFunction(() => document.querySelector(".validity")?.textContent === "Valid");
    await clickButton(page, ".editor-bar", "Save");
    await page.waitForFunction(() => location.pathname.endsWith("/edit") && !location.pathname.includes("/new"));
    await page.waitForFunction(() => document.querySelector(".editor-bar")?.textContent?.includes("version 1"));
    const id = await page.evaluate(() => location.pathname.split("/")[2] ?? "");

    // The open pipeline: a change is proposed against the canvas, applied, undone, applied again and saved.
    expect(await textOf(page, `${PANEL} label`)).toContain("Change this pipeline");
    await ask(page, "Wait 2 seconds before the greet");
    await page.waitForSelector(`${PANEL} .copilot-proposal`, { timeout: 30_000 });
    const modification = await textOf(page, "ul[aria-label='Changes the copilot proposes']");
    expect(modification).toContain("control.delay");
    expect(modification).toContain("/connections/0/to/node");
    expect(await nodeIds(page)).toEqual(["greet", "start"]);
    await screenshot(page, "copilot-modification");
    await clickButton(page, PANEL, "Apply to the canvas");
    await page.waitForSelector(".node-card[data-node-id=wait]");
    await clickButton(page, ".editor-bar", "Undo copilot");
    await page.waitForFunction(() => document.querySelector(".node-card[data-node-id=wait]") === null);
    expect(await nodeIds(page)).toEqual(["greet", "start"]);

    await ask(page, "Wait 2 seconds before the greet");
    await page.waitForSelector(`${PANEL} .copilot-proposal`, { timeout: 30_000 });
    await clickButton(page, PANEL, "Apply to the canvas");
    await page.waitForSelector(".node-card[data-node-id=wait]");
    await page.waitForFunction(() => document.querySelector(".validity")?.textContent === "Valid");
    await clickButton(page, ".editor-bar", "Save");
    await page.waitForFunction(() => document.querySelector(".editor-bar")?.textContent?.includes("version 2"));
    // Saved: the proposal is the pipeline now, nothing left to undo.
    expect(await page.$$eval(".editor-bar button", (bs) => bs.map((b) => b.textContent))).not.toContain("Undo copilot");
    const saved = (await adminApi(`/api/pipelines/${id}`)) as { definition: { nodes: { id: string; config: unknown }[]; connections: unknown[] } };
    expect(saved.definition.nodes.find((n) => n.id === "wait")?.config).toEqual({ ms: 2000 });
    expect(saved.definition.connections).toContainEqual({ from: { node: "wait", port: "output" }, to: { node: "greet", port: "input" } });
    await expectAccessible(page);
  });

  it("is hidden from a clinician, whom the API refuses too", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const created = await adminApi("/api/pipelines", {
      name: "Clinician can read",
      definition: { nodes: [{ id: "start", type: "control.manual_trigger", config: {} }], connections: [] },
    });
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    await visit(page, `/pipelines/${created.id}/edit`);
    await page.waitForSelector(".node-card[data-node-id=start]");
    expect(await page.$(PANEL)).toBeNull();
    const refused = await fetch(`${consoleUrl()}/api/copilot/generate/pipeline`, {
      method: "POST",
      headers: { authorization: `Bearer ${clinicianKey}`, "x-organization-id": orgId, "content-type": "application/json" },
      body: JSON.stringify({ description: "Greet the caller by name" }),
    });
    expect(refused.status).toBe(403);
  });
});
