// Exports page: an administrator starts a system-level export of chosen types, watches it run to
// completion, opens its manifest and downloads a file with the session; another export is
// cancelled (or, if it already finished, its files deleted) from the list; a clinician has no
// export:run, so no link, "Not allowed" and a 403.
import { describe, expect, it } from "vitest";
import { adminApi, consolePerTest, expectAccessible, fileOrgs, navLinks, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

const statusOf = (id: string) => document.querySelector(`tr[data-export='${id}'] .export-status`)?.textContent ?? "";

describe("Exports page", () => {
  it("starts an export, shows it complete with its manifest, downloads a file and cancels another", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    await adminApi(`/fhir/r4/${orgId}/Patient`, { resourceType: "Patient", name: [{ family: "Exportson", given: ["Ivy"] }] });
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    expect(await navLinks(page)).toContain("Exports");
    await page.click("nav[aria-label=Main] a[href='/exports']");
    await page.waitForSelector("form[aria-label='Start an export']");
    await page.waitForFunction(() => !/Loading exports/.test(document.querySelector("main")?.textContent ?? ""));
    const before = (await adminApi("/api/v1/bulk-exports")) as { total_count: number };
    if (before.total_count === 0) expect(await textOf(page, "main .empty h2")).toBe("No exports yet");

    await page.click("input[name=_type][value=Patient]");
    await page.click("form[aria-label='Start an export'] button[type=submit]");
    await page.waitForFunction((n) => document.querySelectorAll("tr[data-export]").length === n + 1, {}, before.total_count);
    const id = await page.$eval("tr[data-export]", (tr) => tr.getAttribute("data-export") ?? "");
    expect(await page.$eval(`tr[data-export='${id}']`, (tr) => tr.textContent ?? "")).toContain("Patient");
    // The page polls while it runs; the job's alarms finish it in the background.
    await page.waitForFunction((i) => /^completed/.test(document.querySelector(`tr[data-export='${i}'] .export-status`)?.textContent ?? ""), { timeout: 30_000 }, id);
    await page.click(`tr[data-export='${id}'] button[aria-expanded]`);
    await page.waitForSelector(`section[aria-label='Files of export ${id}'] a[download]`);
    const file = await page.$eval(`section[aria-label='Files of export ${id}'] a[download]`, (a) => ({ href: (a as HTMLAnchorElement).getAttribute("href") ?? "", name: a.textContent ?? "" }));
    expect(file.name).toMatch(/^Patient-\d+\.ndjson$/);
    await screenshot(page, "exports-manifest");
    await expectAccessible(page);
    // The link's GET carries only the session cookie, as a click's download would.
    const downloaded = await page.evaluate(async (href) => {
      const res = await fetch(href);
      return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
    }, file.href);
    expect(downloaded.status).toBe(200);
    expect(downloaded.type).toBe("application/fhir+ndjson");
    const lines = downloaded.text.trimEnd().split("\n").map((l) => JSON.parse(l) as { resourceType: string; name?: { family?: string }[] });
    expect(lines.every((r) => r.resourceType === "Patient")).toBe(true);
    expect(lines.some((r) => r.name?.[0]?.family === "Exportson")).toBe(true);

    // A second export, cancelled from the list (deleted, if it already completed).
    await page.click("input[name=_type][value=Observation]");
    await page.click("form[aria-label='Start an export'] button[type=submit]");
    await page.waitForFunction((n) => document.querySelectorAll("tr[data-export]").length === n + 2, {}, before.total_count);
    const second = await page.$eval("tr[data-export]", (tr) => tr.getAttribute("data-export") ?? "");
    expect(second).not.toBe(id);
    await page.waitForSelector(`tr[data-export='${second}'] button:not([aria-expanded])`);
    await page.click(`tr[data-export='${second}'] button:not([aria-expanded])`);
    await page.waitForFunction((i) => /^cancelled/.test(document.querySelector(`tr[data-export='${i}'] .export-status`)?.textContent ?? ""), {}, second);
    expect(await page.$(`tr[data-export='${second}'] button`)).toBeNull();
    expect(await page.evaluate(statusOf, id)).toMatch(/^completed/);
    await screenshot(page, "exports");
    await expectAccessible(page);
  });

  it("shows the API's refusal of a bad request", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/exports");
    // A Group-level export needs a group: with none chosen the button stays disabled.
    await page.select("select[name=level]", "group");
    await page.waitForSelector("select[name=group]");
    expect(await page.$eval("form[aria-label='Start an export'] button[type=submit]", (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    await page.select("select[name=level]", "system");
    // A _since in the future is refused by the service with its reason.
    await page.$eval("input[name=since]", (el) => {
      const input = el as HTMLInputElement;
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set;
      setter?.call(input, "2999-01-01T00:00");
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await page.click("form[aria-label='Start an export'] button[type=submit]");
    expect(await textOf(page, "form[aria-label='Start an export'] [role=alert]")).toMatch(/_since is in the future/);
    await screenshot(page, "exports-refused");
    await expectAccessible(page);
  });

  it("hides the page from a clinician, whose role lacks export:run", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const clinician = await consolePage.open();
    await signIn(clinician, orgId, clinicianKey);
    expect(await navLinks(clinician)).not.toContain("Exports");
    await visit(clinician, "/exports");
    expect(await textOf(clinician, "main h1")).toBe("Not allowed");
    expect(await clinician.evaluate(async () => (await fetch("/api/v1/bulk-exports")).status)).toBe(403);
  });
});
