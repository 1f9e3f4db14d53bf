// The pipeline editor in a real browser: build a pipeline from scratch on the canvas (add nodes
// from the catalog, connect their ports, see the validator's error on the node, fix the
// configuration), save, deploy, run in test mode and read each node's result on the canvas.
import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { adminApi, clickWhenStill, consolePerTest, docScreenshot, expectAccessible, fileOrgs, replaceText, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

/**
 * Adds a node from the catalog as a user would: search, click its entry. A click that landed
 * while the catalog's list was still re-rendering (its first load, or the search's filter) adds
 * nothing (CI saw the trigger missing from the canvas), so it is tried again until a card appears.
 */
async function addFromCatalog(page: Page, search: string, type: string): Promise<void> {
  const box = "aside[aria-label='Node catalog'] input[type=search]";
  const cards = () => page.evaluate(() => document.querySelectorAll(".node-card").length);
  const before = await cards();
  for (let attempt = 1; ; attempt++) {
    await page.click(box, { count: 3 });
    await page.keyboard.press("Backspace");
    await page.type(box, search);
    await page.click(`button[data-node-type='${type}']`);
    const added = await page
      .waitForFunction((n) => document.querySelectorAll(".node-card").length > n, { timeout: 5_000 }, before)
      .then(() => true)
      .catch(() => false);
    if (added) return;
    if (attempt === 4) throw new Error(`clicking ${type} in the catalog added no node`);
  }
}

/**
 * Connects two port handles the way React Flow lets a user: click the output, then the input.
 * Clicking the output selects its node, which swaps the configuration panel and can move the
 * canvas, so each click waits for its handle to stand still (`clickWhenStill`). A click that
 * drew no edge is tried again, as a user would, a few times.
 */
async function connect(page: Page, fromLabel: string, toLabel: string): Promise<void> {
  const from = `[aria-label='${fromLabel}']`;
  const edges = () => page.$$eval(".react-flow__edge", (e) => e.length);
  const before = await edges();
  for (let attempt = 1; ; attempt++) {
    await clickWhenStill(page, from);
    // A click that landed while the handle moved starts no click-connect mode: try it again.
    const connecting = await page
      .waitForSelector(`${from}.clickconnecting`, { timeout: 3_000 })
      .then(() => true)
      .catch(() => false);
    if (connecting) await clickWhenStill(page, `[aria-label='${toLabel}']`);
    const drawn =
      connecting &&
      (await page
        .waitForFunction((n) => document.querySelectorAll(".react-flow__edge").length > n, { timeout: 3_000 }, before)
        .then(() => true)
        .catch(() => false));
    if (drawn) return;
    if (attempt === 4) throw new Error(`no connection drawn from ${fromLabel} to ${toLabel} (click-connect mode ${connecting ? "started" : "never started"})`);
    // Leave click-connect mode before trying again.
    if (await page.$(`${from}.clickconnecting`)) await page.keyboard.press("Escape");
  }
}

/**
 * Opens a node's configuration panel, in the JSON view when asked (the form is the default). A
 * click that landed while the card moved (its validation errors drawn, an edge laid out) opens
 * nothing, so it is tried again, as a user would, a few times.
 */
async function configure(page: Page, nodeId: string, view: "form" | "json" = "form"): Promise<void> {
  const title = `.node-card[data-node-id=${nodeId}] .node-title`;
  const panel = `section[aria-label='Configure ${nodeId}']`;
  for (let attempt = 1; ; attempt++) {
    await page.waitForSelector(title, { visible: true });
    await page.click(title);
    const opened = await page
      .waitForSelector(panel, { timeout: 5_000 })
      .then(() => true)
      .catch(() => false);
    if (opened) break;
    if (attempt === 4) throw new Error(`clicking ${nodeId}'s title opened no configuration panel`);
  }
  if (view === "json") {
    await page.click(`${panel} .config-view-toggle button:nth-of-type(2)`);
    await page.waitForSelector(`${panel} .config-json`);
  }
}

describe("pipeline editor", () => {
  it("builds, validates, saves, deploys and runs a pipeline drawn on the canvas", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/pipelines/new");
    await page.waitForSelector("aside[aria-label='Node catalog']");
    await page.type(".editor-bar input", "Greeting");

    await addFromCatalog(page, "manual", "control.manual_trigger");
    await addFromCatalog(page, "jsonata", "data.transform");
    // The live validation's errors resize the new node's card: connect once they are drawn.
    await page.waitForSelector(".node-card.invalid[data-node-id=transform_1]");
    await connect(page, "manual_trigger_1 output event (trigger-event)", "transform_1 input input (json)");
    await page.waitForSelector(".react-flow__edge");

    // The transform has no expression yet: the service's validator says so on the node.
    await page.waitForSelector(".node-card.invalid[data-node-id=transform_1] .node-error");
    expect(await textOf(page, ".node-card[data-node-id=transform_1] .node-error")).toMatch(/expression/i);
    expect(await textOf(page, ".validity")).toMatch(/problem/);
    await screenshot(page, "editor-invalid");

    // Fix it in the configuration panel; the panel checks the config_schema as you type.
    await configure(page, "transform_1", "json");
    await replaceText(page, ".config-json", '{"expression": "{\\"greeting\\": \\"Hello \\" & name}"}');
    await page.waitForFunction(() => document.querySelector(".validity")?.textContent === "Valid");
    expect(await page.$(".node-card.invalid")).toBeNull();

    await page.click(".editor-bar button:not([disabled])");
    await page.waitForFunction(() => location.pathname.endsWith("/edit") && !location.pathname.includes("/new"));
    await page.waitForFunction(() => document.querySelector(".editor-bar")?.textContent?.includes("version 1"));
    await Promise.all([page.waitForFunction(() => document.querySelector(".notice")?.textContent === "Version 1 deployed."), page.evaluate(() => {
      const deploy = Array.from(document.querySelectorAll(".editor-bar button")).find((b) => b.textContent === "Deploy") as HTMLButtonElement;
      deploy.click();
    })]);
    await page.waitForFunction(() => document.querySelector(".editor-bar .badge")?.textContent === "deployed");

    await replaceText(page, ".run-inputs", '{"name": "Ada"}');
    await page.evaluate(() => {
      const run = Array.from(document.querySelectorAll(".run-panel button")).find((b) => b.textContent === "Run") as HTMLButtonElement;
      run.click();
    });
    await page.waitForSelector("[data-execution-status=completed]");
    expect(await textOf(page, ".run-result pre")).toContain("Hello Ada");
    const statuses = await page.$$eval("[data-run-status]", (els) => els.map((e) => e.getAttribute("data-run-status")));
    expect(statuses).toEqual(["completed", "completed"]);
    await screenshot(page, "editor-run");
    await docScreenshot(page, "editor");
    await expectAccessible(page);

    // The transform's data panes: input | parameters | output of the last execution, or a chosen one.
    await replaceText(page, ".run-inputs", '{"name": "Grace"}');
    await page.evaluate(() => (Array.from(document.querySelectorAll(".run-panel button")).find((b) => b.textContent === "Run") as HTMLButtonElement).click());
    await page.waitForFunction(() => document.querySelector(".run-result pre")?.textContent?.includes("Hello Grace"));
    await configure(page, "transform_1");
    const panes = "section[aria-label='Data of transform_1']";
    const pane = (name: string) => page.$eval(`${panes} [data-pane=${name}]`, (el) => el.textContent ?? "");
    await page.waitForFunction((sel) => document.querySelector(`${sel} [data-pane=output]`)?.textContent?.includes("Hello Grace"), {}, panes);
    expect(await pane("input")).toContain('"name": "Grace"');
    expect(await pane("parameters")).toContain("Hello ");
    expect(await textOf(page, `${panes} [data-pane-status]`)).toBe("completed");
    await page.waitForFunction((sel) => (document.querySelector(`${sel} select`) as HTMLSelectElement | null)?.options.length === 2, {}, panes);
    const older = await page.$eval(`${panes} select`, (s) => (s as HTMLSelectElement).options[1]?.value ?? "");
    await page.select(`${panes} select`, older);
    await page.waitForFunction((sel) => document.querySelector(`${sel} [data-pane=output]`)?.textContent?.includes("Hello Ada"), {}, panes);
    expect(await pane("input")).toContain('"name": "Ada"');
    await screenshot(page, "editor-node-data");
    await expectAccessible(page);

    // The expression field is a CodeMirror editor: it previews on the chosen execution's input
    // (Ada), and previews the edit as typed (its completion source is unit-tested).
    const panel = "section[aria-label='Configure transform_1']";
    const preview = `${panel} .expression-preview pre`;
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent?.includes('"greeting": "Hello Ada"'), {}, preview);
    const code = `${panel} .expression-input >>> .cm-content`;
    await page.click(code);
    await page.keyboard.down("Control");
    await page.keyboard.press("a");
    await page.keyboard.up("Control");
    await page.keyboard.press("Backspace");
    await page.keyboard.type('{"hi": name');
    await page.keyboard.press("Escape");
    await page.keyboard.type("}");
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent?.includes('"hi": "Ada"'), {}, preview);
    expect(await textOf(page, code)).toBe('{"hi": name}');
    await page.waitForFunction(() => document.querySelector(".validity")?.textContent === "Valid");
    await screenshot(page, "editor-expression");
    await expectAccessible(page);

    // Pin an edited input to the transform and run from there: a retry of the chosen execution
    // that reuses the trigger's output and gives the transform the pinned input.
    const paneButton = (label: string) =>
      page.evaluate(
        (sel, text) => (Array.from(document.querySelectorAll(`${sel} button`)).find((b) => b.textContent === text) as HTMLButtonElement).click(),
        panes,
        label,
      );
    await paneButton("Pin this input");
    const pinned = `${panes} textarea.pinned-input`;
    expect(JSON.parse(await page.$eval(pinned, (el) => (el as HTMLTextAreaElement).value))).toEqual({ input: { name: "Ada" } });
    await replaceText(page, pinned, '{"input": {"name": "Lin"}}');
    await paneButton("Run from here");
    await page.waitForFunction((sel) => document.querySelector(`${sel} [data-pane=output]`)?.textContent?.includes("Hello Lin"), {}, panes);
    // The retry is the execution shown, listed first once the history reloads.
    await page.waitForFunction((sel) => (document.querySelector(`${sel} select`) as HTMLSelectElement | null)?.selectedOptions[0]?.textContent?.includes("from transform_1"), {}, panes);
    expect(await page.$eval(`${panes} [data-pane=input] .badge`, (b) => b.textContent)).toContain("pinned");
    expect(await page.$$eval("[data-run-status]", (els) => els.map((e) => e.getAttribute("data-run-status")))).toEqual(["reused", "completed"]);
    await screenshot(page, "editor-run-from-here");
    await expectAccessible(page);

    // A changed configuration saves as version 2; version 1's diff names the change; restoring it
    // saves version 3 with version 1's definition.
    await configure(page, "transform_1", "json");
    await replaceText(page, ".config-json", '{"expression": "{\\"greeting\\": \\"Hi \\" & name}"}');
    await page.waitForFunction(() => document.querySelector(".validity")?.textContent === "Valid");
    await page.evaluate(() => (Array.from(document.querySelectorAll(".editor-bar button")).find((b) => b.textContent === "Save") as HTMLButtonElement).click());
    await page.waitForFunction(() => document.querySelector(".editor-bar")?.textContent?.includes("version 2"));
    // The pinned input was saved with the pipeline (the node's pinned_input): deployed and reloaded,
    // the transform still has it, and "run from here" sends it again.
    await Promise.all([
      page.waitForFunction(() => document.querySelector(".notice")?.textContent === "Version 2 deployed."),
      page.evaluate(() => (Array.from(document.querySelectorAll(".editor-bar button")).find((b) => b.textContent === "Deploy version 2") as HTMLButtonElement).click()),
    ]);
    await page.reload();
    await configure(page, "transform_1");
    await page.waitForSelector(pinned);
    expect(JSON.parse(await page.$eval(pinned, (el) => (el as HTMLTextAreaElement).value))).toEqual({ input: { name: "Lin" } });
    expect(await page.$eval(`${panes} [data-pane=input] .badge`, (b) => b.textContent)).toContain("pinned");
    // From Grace's execution, whose transform had Grace as input: the saved pin (Lin) is what runs.
    await page.waitForFunction((sel) => (document.querySelector(`${sel} select`) as HTMLSelectElement | null)?.options.length === 3, {}, panes);
    await page.select(`${panes} select`, await page.$eval(`${panes} select`, (el) => (el as HTMLSelectElement).options[1]?.value ?? ""));
    await page.waitForFunction((sel) => document.querySelector(`${sel} [data-pane=output]`)?.textContent?.includes("Hello Grace"), {}, panes);
    await paneButton("Run from here");
    await page.waitForFunction((sel) => (document.querySelector(`${sel} select`) as HTMLSelectElement | null)?.options.length === 4, {}, panes);
    await page.waitForFunction((sel) => document.querySelector(`${sel} [data-pane=output]`)?.textContent?.includes("Hello Lin"), {}, panes);
    await (await page.waitForSelector("li[data-version='1'] button"))?.click();
    const diff = await textOf(page, "ul[aria-label='Changes from version 1 to the canvas']");
    expect(diff).toContain("/nodes/1/config/expression");
    expect(diff).toContain("Hi ");
    await screenshot(page, "editor-versions");
    await expectAccessible(page);
    await page.evaluate(() => (Array.from(document.querySelectorAll(".version-diff button")).find((b) => b.textContent === "Restore version 1") as HTMLButtonElement).click());
    await page.waitForFunction(() => document.querySelector(".editor-bar")?.textContent?.includes("version 3"));
    await configure(page, "transform_1", "json");
    expect(await page.$eval(".config-json", (el) => (el as HTMLTextAreaElement).value)).toContain("Hello ");
  });

  it("opens a small pipeline at a readable zoom, says why a connection is refused, and documents the selected node", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    // Three nodes a card's width apart, as the editor lays them out: they used to open at 50%.
    const created = await adminApi("/api/pipelines", {
      name: "Readable",
      description: "",
      definition: {
        nodes: [
          { id: "manual_trigger_1", type: "control.manual_trigger", config: {}, position: { x: 40, y: 40 } },
          { id: "ack_1", type: "hl7.ack", config: {}, position: { x: 330, y: 40 } },
          { id: "transform_1", type: "data.transform", config: { expression: "$" }, position: { x: 620, y: 40 } },
        ],
        connections: [
          { from: { node: "manual_trigger_1", port: "event" }, to: { node: "ack_1", port: "message" } },
          { from: { node: "manual_trigger_1", port: "event" }, to: { node: "transform_1", port: "input" } },
        ],
      },
    });
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, `/pipelines/${created.id}/edit`);
    await page.waitForFunction(() => document.querySelectorAll(".node-card").length === 3);
    await page.waitForFunction(() => document.querySelector(".validity")?.textContent === "Valid");
    const zoom = await page.$eval(".react-flow__viewport", (el) => new DOMMatrixReadOnly(getComputedStyle(el).transform).a);
    expect(zoom).toBeGreaterThanOrEqual(0.8);
    // The title's text as drawn: its font size times the zoom.
    const drawnPx = await page.$eval(".node-card .node-title", (el) => el.getBoundingClientRect().height);
    expect(drawnPx).toBeGreaterThanOrEqual(10);
    // Every card is in view.
    const inView = await page.$$eval(".node-card", (cards) => {
      const canvas = (document.querySelector(".canvas") as HTMLElement).getBoundingClientRect();
      return cards.map((c) => {
        const r = c.getBoundingClientRect();
        return r.left >= canvas.left && r.right <= canvas.right;
      });
    });
    expect(inView).toEqual([true, true, true]);

    // The ACK's text output into the transform's JSON input: refused, and the canvas says why.
    const before = await page.$$eval(".react-flow__edge", (e) => e.length);
    await clickWhenStill(page, "[aria-label='ack_1 output ack (text)']");
    await page.waitForSelector("[aria-label='ack_1 output ack (text)'].clickconnecting");
    await clickWhenStill(page, "[aria-label='transform_1 input input (json)']");
    const reason = await textOf(page, ".canvas .connection-refused[role=alert]");
    expect(reason).toContain("ack_1.ack gives text");
    expect(reason).toContain("transform_1.input takes any structured value (not text)");
    expect(await page.$$eval(".react-flow__edge", (e) => e.length)).toBe(before);
    await screenshot(page, "editor-connection-refused");
    await expectAccessible(page);

    // Selecting the transform shows its documentation beside the form: summary, ports, fields, example.
    await configure(page, "transform_1");
    const docs = "section[aria-label='Documentation for Transform (JSONata)']";
    await page.waitForFunction((sel) => document.querySelector(sel)?.textContent?.includes("$execution_id"), {}, docs);
    const text = await textOf(page, docs);
    expect(await textOf(page, "section[aria-label='Configure transform_1']")).toContain("Reshapes the input with a JSONata expression");
    expect(text).toMatch(/Inputs\s*input\s*json/);
    expect(text).toContain("The upstream node's output");
    expect(text).toContain("expression");
    expect(text).toContain("Ada Lovelace");
    await screenshot(page, "editor-node-docs");
    await expectAccessible(page);
  });

  it("configures a node through the form generated from its config_schema", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/pipelines/new");
    await page.waitForSelector("aside[aria-label='Node catalog']");
    await page.type(".editor-bar input", "Configured by form");
    await addFromCatalog(page, "manual", "control.manual_trigger");
    await addFromCatalog(page, "delay", "control.delay");
    await page.waitForSelector(".node-card.invalid[data-node-id=delay_1]");
    await connect(page, "manual_trigger_1 output event (trigger-event)", "delay_1 input input (json)");

    // The delay's `ms` (an integer, 0 to 7 days) is a number field of the form, opened by default.
    await configure(page, "delay_1");
    const field = "section[aria-label='Configure delay_1'] .config-form input[type=number]";
    await page.waitForSelector(field);
    expect(await page.$eval("section[aria-label='Configure delay_1'] .config-view-toggle button[aria-pressed=true]", (b) => b.textContent)).toBe("Form");
    expect(await page.$eval(`${field}`, (el) => (el.closest(".form-group")?.textContent ?? ""))).toMatch(/ms/);

    // An invalid value shows its error inline, beside the field.
    await page.type(field, "-5");
    const inlineError = "section[aria-label='Configure delay_1'] .config-form .error-detail";
    await page.waitForSelector(inlineError);
    expect(await textOf(page, inlineError)).toMatch(/0/);
    expect(await page.$eval(inlineError, (el) => el.closest(".form-group")?.querySelector("input[type=number]") !== null)).toBe(true);
    await screenshot(page, "editor-config-form-invalid");
    await expectAccessible(page);

    // Fixing it clears the error, and the service's validation of the whole definition agrees.
    await replaceText(page, field, "1500");
    await page.waitForFunction((sel) => document.querySelector(sel) === null, {}, inlineError);
    await page.waitForFunction(() => document.querySelector(".validity")?.textContent === "Valid");

    // The JSON view shows what the form set; the saved definition carries it.
    await page.click("section[aria-label='Configure delay_1'] .config-view-toggle button:nth-of-type(2)");
    expect(JSON.parse(await page.$eval(".config-json", (el) => (el as HTMLTextAreaElement).value))).toEqual({ ms: 1500 });
    await screenshot(page, "editor-config-form");
    await page.evaluate(() => (Array.from(document.querySelectorAll(".editor-bar button")).find((b) => b.textContent === "Save") as HTMLButtonElement).click());
    await page.waitForFunction(() => location.pathname.endsWith("/edit") && !location.pathname.includes("/new"));
    const id = await page.evaluate(() => location.pathname.split("/")[2]);
    const saved = (await adminApi(`/api/pipelines/${id}`)) as { definition: { nodes: { id: string; config: unknown }[] } };
    expect(saved.definition.nodes.find((n) => n.id === "delay_1")?.config).toEqual({ ms: 1500 });
  });
});
