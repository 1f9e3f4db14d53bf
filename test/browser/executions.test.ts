// The executions pages in a real browser: a run that failed at a node is found in the list by its
// filters, opened, and retried from that node with corrected inputs; the step debugger runs a
// pipeline node by node with one node's outputs supplied by hand.
import { describe, expect, it } from "vitest";
import { consolePerTest, consoleUrl, expectAccessible, fileOrgs, replaceText, screenshot, signIn, textOf, visit } from "./harness";
import { docScreenshot } from "./harness";

const consolePage = consolePerTest();

/** start → double (fails on a value that is not a number) → label. */
const numberPipeline = {
  nodes: [
    { id: "start", type: "control.manual_trigger", config: {} },
    { id: "double", type: "data.transform", config: { expression: '{"value": $number(value) * 2}' } },
    { id: "label", type: "data.transform", config: { expression: '"Result " & $string(value)' } },
  ],
  connections: [
    { from: { node: "start", port: "event" }, to: { node: "double", port: "input" } },
    { from: { node: "double", port: "output" }, to: { node: "label", port: "input" } },
  ],
};

async function call<T>(path: string, body: unknown): Promise<T> {
  const { orgId, adminKey } = fileOrgs().orgA;
  const res = await fetch(`${consoleUrl()}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminKey}`, "x-organization-id": orgId, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const createPipeline = async (name: string) => (await call<{ id: string }>("/api/pipelines", { name, description: "", definition: numberPipeline })).id;

/** Clicks the button whose text is exactly `label` inside `scope`. */
async function press(page: import("puppeteer-core").Page, scope: string, label: string): Promise<void> {
  await page.waitForFunction((s, l) => Array.from(document.querySelectorAll(`${s} button`)).some((b) => b.textContent === l && !(b as HTMLButtonElement).disabled), {}, scope, label);
  await page.evaluate(
    (s, l) => (Array.from(document.querySelectorAll(`${s} button`)).find((b) => b.textContent === l) as HTMLButtonElement).click(),
    scope,
    label,
  );
}

describe("executions pages", () => {
  it("filters the list, opens a failed execution and retries it from the failing node with fixed inputs", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const pipelineId = await createPipeline("Doubler (retry)");
    const failed = await call<{ execution_id: string; status: string }>("/api/execute", { pipeline_id: pipelineId, inputs: { value: "abc" }, test_mode: true });
    expect(failed.status).toBe("failed");

    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/executions");
    await page.waitForSelector("main table");
    await page.select("select[name=pipeline]", pipelineId);
    await page.select("select[name=status]", "failed");
    await page.waitForFunction((id) => {
      const rows = document.querySelectorAll("main tbody tr");
      return rows.length === 1 && rows[0]?.getAttribute("data-execution-id") === id;
    }, {}, failed.execution_id);
    expect(await textOf(page, "main tbody tr")).toContain("EXPRESSION_FAILED");
    await screenshot(page, "executions-list");
    await expectAccessible(page);

    // A status no run has: the empty state says how to widen the search.
    await page.select("select[name=status]", "waiting");
    expect(await textOf(page, ".empty h2")).toBe("No executions match these filters");
    await page.select("select[name=status]", "failed");

    await page.waitForSelector(`tr[data-execution-id='${failed.execution_id}'] a`);
    await page.click(`tr[data-execution-id='${failed.execution_id}'] a`);
    await page.waitForSelector("[data-execution-status=failed]");
    expect(await textOf(page, "main .error")).toMatch(/Failed at double.*EXPRESSION_FAILED/s);
    expect(await textOf(page, "[data-node-id=double] .node-error")).toMatch(/cast value to a number/);
    expect(await page.$eval("[data-node-id=start]", (el) => el.getAttribute("data-node-status"))).toBe("completed");
    await screenshot(page, "execution-failed");
    await expectAccessible(page);

    // Retry from the failing node with the input corrected; start's output is reused.
    await page.click("button[data-retry-node=double]");
    await page.waitForSelector("section[aria-label='Retry from double'] textarea");
    expect(await page.$eval(".retry-inputs", (el) => (el as HTMLTextAreaElement).value)).toContain('"abc"');
    await replaceText(page, ".retry-inputs", '{"input": {"value": "21"}}');
    await press(page, "section[aria-label='Retry from double']", "Retry");
    await page.waitForSelector("[data-execution-status=completed]");
    expect(await page.evaluate(() => location.pathname)).not.toBe(`/executions/${failed.execution_id}`);
    expect(await textOf(page, ".facts")).toContain("from node double");
    const statuses = await page.$$eval("[data-node-status]", (els) => Object.fromEntries(els.map((e) => [e.getAttribute("data-node-id"), e.getAttribute("data-node-status")])));
    expect(statuses).toEqual({ start: "reused", double: "completed", label: "completed" });
    expect(await textOf(page, "[data-node-id=label]")).toContain("Result 42");
    await screenshot(page, "execution-retried");
    // The README's shot shows the execution's header and its first nodes.
    await page.evaluate(() => window.scrollTo(0, 0));
    await docScreenshot(page, "execution");

    // The retry links back to the run it retried.
    await page.click(".facts a[href^='/executions/']");
    await page.waitForSelector("[data-execution-status=failed]");
  });

  it("steps through a pipeline in the debugger, supplying one node's outputs by hand", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const pipelineId = await createPipeline("Doubler (debugger)");
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/executions");
    await page.click("a[href='/executions/debug']");
    await page.waitForSelector("form[aria-label='Start a step session']");
    await page.waitForSelector(`select[name=pipeline] option[value='${pipelineId}']`);
    await page.select("select[name=pipeline]", pipelineId);
    await replaceText(page, ".debug-inputs", '{"value": "not a number"}');
    await page.click("form[aria-label='Start a step session'] button[type=submit]");
    await page.waitForSelector("[data-current-node=start]");
    await screenshot(page, "step-debugger-start");
    await expectAccessible(page);

    await press(page, ".debug-current", "Run start and advance");
    await page.waitForSelector("[data-current-node=double]");
    expect(await textOf(page, ".debug-steps [data-node-id=start]")).toContain("not a number");

    // double would fail on this value: give it the output it should have produced instead.
    await page.type(".debug-override", '{"output": {"value": 100}}');
    await press(page, ".debug-current", "Use these outputs and advance");
    await page.waitForSelector("[data-current-node=label]");
    await press(page, ".debug-current", "Run label and advance");
    await page.waitForSelector("[data-session-status=completed]");
    expect(await textOf(page, ".debug-steps li:last-child [data-node-id=label]")).toContain("Result 100");
    const taken = await page.$$eval(".debug-steps [data-node-id]", (els) => els.map((e) => `${e.getAttribute("data-node-id")}:${e.getAttribute("data-node-status")}`));
    expect(taken).toEqual(["start:completed", "double:completed", "label:completed"]);
    await screenshot(page, "step-debugger-done");
    await expectAccessible(page);
  });

  it("another organization's execution id shows not found", async () => {
    // Run in organization A, then opened by organization B's administrator.
    const ran = await call<{ execution_id: string }>("/api/execute", { pipeline_id: await createPipeline("Doubler (tenancy)"), inputs: { value: "1" }, test_mode: true });
    const { orgId, adminKey } = fileOrgs().orgB;
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, `/executions/${ran.execution_id}`);
    expect(await textOf(page, "main [role=alert] strong")).toBe("Not found");
  });
});
