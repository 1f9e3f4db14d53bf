// Settings → API keys: a key created in the console is shown once, works, and revoking it stops it.
import { describe, expect, inject, it } from "vitest";
import { consolePerTest, expectAccessible, fileOrgs, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

describe("API keys page", () => {
  it("creates a key shown once, then revokes it", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const base = inject("consoleUrl");
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/settings/api-keys");
    await page.waitForSelector("main table");
    await screenshot(page, "api-keys");
    await expectAccessible(page);

    await page.type("main form input", "Lab interface");
    await page.select("main form select", "service");
    await page.click("main form button[type=submit]");
    await page.waitForSelector(".secret input.secret-value");
    const secret = await page.$eval(".secret input.secret-value", (el) => (el as HTMLInputElement).value);
    expect(secret).toMatch(/^cdis_[A-Za-z0-9_-]{43}$/);
    await screenshot(page, "api-key-created");
    const works = await fetch(`${base}/api/organization`, { headers: { authorization: `Bearer ${secret}`, "x-organization-id": orgId } });
    expect(works.status).toBe(200);

    // Shown once: gone after "Done", and the list shows only the prefix.
    await page.click(".secret > button");
    expect(await page.content()).not.toContain(secret);
    expect(await textOf(page, "main table")).toContain(secret.slice(0, 13));

    page.once("dialog", (d) => void d.accept());
    await page.click("button[aria-label='Revoke Lab interface']");
    await page.waitForFunction(() => Array.from(document.querySelectorAll("main tr")).some((tr) => tr.textContent?.includes("Lab interface") && tr.textContent.includes("revoked")));
    const refused = await fetch(`${base}/api/organization`, { headers: { authorization: `Bearer ${secret}`, "x-organization-id": orgId } });
    expect(refused.status).toBe(401);
  });
});
