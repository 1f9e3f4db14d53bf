// The agents pages in a real browser against the suite's fake OpenAI-compatible model: an agent is
// listed, its prompt edited and snapshotted as a version, and a chat streams the model's thinking,
// the tool call, its result and the answer, then appears among the agent's conversations; an agent
// created through the form is deployed and undeployed.
import type { ElementHandle } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { consolePerTest, consoleUrl, expectAccessible, fileOrgs, screenshot, signIn, textOf, visit } from "./harness";
import { FAKE_MODEL } from "./setup/fake-model";

const consolePage = consolePerTest();

async function apiAs<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const { orgId, adminKey } = fileOrgs().orgA;
  const res = await fetch(`${consoleUrl()}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${adminKey}`, "x-organization-id": orgId, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

describe("agents pages", () => {
  it("edits an agent, saves a version and streams a chat with a tool call", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const { models } = await apiAs<{ models: { id: string; provider: string }[] }>("/api/llm-models");
    const model = models.find((m) => m.provider === "openai-compatible" && m.id.endsWith(FAKE_MODEL));
    expect(model).toBeDefined();
    const agent = await apiAs<{ id: string }>("/api/agents", {
      method: "POST",
      body: { template_id: "template-clinical_assistant", name: "Census bot", tools: ["fhir_search"], model_config: { model: model?.id } },
    });

    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/agents");
    await page.waitForSelector(`tr[data-agent-id='${agent.id}'] a`);
    await screenshot(page, "agents-list");
    await expectAccessible(page);
    await page.click(`tr[data-agent-id='${agent.id}'] a`);
    await page.waitForSelector("form[aria-label='Agent settings'] textarea[name=system_prompt]");

    // Edit the prompt, save, then snapshot the configuration as a version.
    await page.click("textarea[name=system_prompt]", { count: 3 });
    await page.keyboard.down("Control");
    await page.keyboard.press("a");
    await page.keyboard.up("Control");
    await page.type("textarea[name=system_prompt]", "Count patients precisely.");
    await page.click("form[aria-label='Agent settings'] button[type=submit]");
    await page.waitForFunction(() => document.querySelector(".agent-settings .notice")?.textContent === "Saved.");
    const saved = await apiAs<{ system_prompt: string }>(`/api/agents/${agent.id}`);
    expect(saved.system_prompt).toBe("Count patients precisely.");
    await page.evaluate(() => (Array.from(document.querySelectorAll("section[aria-label='Agent versions'] button")).find((b) => b.textContent?.startsWith("Save current")) as HTMLButtonElement).click());
    await page.waitForSelector("section[aria-label='Agent versions'] li[data-version='1']");
    await page.waitForFunction(() => document.querySelector("main h1 + p")?.textContent?.includes("version 1"));

    // Chat: thinking, the tool call and its result, then the answer, in that order.
    await page.type("textarea[name=message]", "How many patients are there?");
    await page.click(".chat-form button[type=submit]");
    await page.waitForSelector(".chat-turn[data-finished=true] [data-event=message]", { timeout: 20_000 });
    const events = await page.$$eval(".chat-turn [data-event]", (els) => els.map((e) => e.getAttribute("data-event")));
    expect(events).toEqual(["thinking", "tool_call", "tool_result", "message"]);
    expect(await textOf(page, "[data-event=thinking]")).toContain("Let me look for patients first.");
    expect(await textOf(page, "[data-event=tool_call]")).toContain("fhir_search");
    expect(await textOf(page, "[data-event=message]")).toMatch(/The search found \d+ patients\./);

    // The exchange is kept as a conversation with both messages.
    await page.waitForFunction(() => document.querySelector("section[aria-label=Conversations] li button")?.textContent?.includes("2 messages"));
    await page.click("section[aria-label=Conversations] li button");
    await page.waitForSelector(".conversation-messages li:nth-child(2)");
    expect(await textOf(page, ".conversation-messages")).toContain("How many patients are there?");
    await screenshot(page, "agent-chat");
    await expectAccessible(page);

    // A new agent from a template through the form, then deployed and undeployed on its page.
    await visit(page, "/agents");
    await page.waitForSelector("form[aria-label='New agent'] select[name=template] option");
    await page.type("form[aria-label='New agent'] [name=name]", "Triage bot");
    await page.select("form[aria-label='New agent'] select[name=model]", model?.id ?? "");
    await page.click("form[aria-label='New agent'] button[type=submit]");
    await page.waitForFunction(() => document.querySelector("main h1")?.textContent === "Triage bot not deployed");
    expect(await textOf(page, "form[aria-label='Agent settings']")).toContain(FAKE_MODEL);
    await screenshot(page, "agent-new");
    await expectAccessible(page);
    const press = async (label: string) => {
      const button = (await page.waitForFunction((l) => Array.from(document.querySelectorAll("main button")).find((b) => b.textContent === l), {}, label)).asElement() as ElementHandle<Element>;
      await button.click();
    };
    await press("Deploy");
    await page.waitForFunction(() => document.querySelector("main h1")?.textContent === "Triage bot deployed");
    await press("Undeploy");
    await page.waitForFunction(() => document.querySelector("main h1")?.textContent === "Triage bot not deployed");
    await visit(page, "/agents");
    await page.waitForFunction(() => Array.from(document.querySelectorAll("tbody tr")).some((tr) => tr.textContent?.startsWith("Triage bot")));
  });
});
