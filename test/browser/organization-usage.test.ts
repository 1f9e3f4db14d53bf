// Organization page: every limit beside its current usage from GET /api/organization/usage (the
// rate window's requests, the key's chat and copilot windows, running executions and exports);
// a clinician (org:read) sees it too.
import { describe, expect, it } from "vitest";
import { consolePerTest, expectAccessible, fileOrgs, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

const cell = (key: string) => `tr[data-limit=${key}] td:last-child`;

describe("Organization usage", () => {
  it("shows each limit with what is in use now and refreshes it", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    await visit(page, "/settings/organization");
    await page.waitForFunction(() => /this minute/.test(document.querySelector("tr[data-limit=apiPerMinute]")?.textContent ?? ""));
    const requests = await textOf(page, cell("apiPerMinute"));
    // Sign-in, who-am-I and this page's calls are in the window already.
    expect(Number(/^(\d+) this minute/.exec(requests)?.[1])).toBeGreaterThanOrEqual(1);
    expect(await textOf(page, cell("agentChatPerMinute"))).toBe("0 this minute (your key)");
    expect(await textOf(page, cell("concurrentExecutions"))).toMatch(/^\d+ running$/);
    expect(await textOf(page, cell("concurrentExports"))).toMatch(/^\d+ running$/);
    // What the page shows is what the API reports for the organization.
    const api = await page.evaluate(async () => (await (await fetch("/api/organization/usage")).json()) as { exports: { running: number; limit: number } });
    expect(await textOf(page, cell("concurrentExports"))).toBe(`${api.exports.running} running`);
    expect(await textOf(page, "tr[data-limit=concurrentExports] td:nth-child(2)")).toBe(String(api.exports.limit));
    await page.click("main button");
    await page.waitForFunction(() => !(document.querySelector("main button") as HTMLButtonElement | null)?.disabled);
    expect(await textOf(page, "main")).toMatch(/rate window is 60 s long/);
    await screenshot(page, "organization-usage");
    await expectAccessible(page);
  });
});
