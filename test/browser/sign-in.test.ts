// Sign-in and sign-out in a real browser: the key goes to the service once, the browser keeps only
// an HttpOnly cookie, the console's HTML carries a CSP without inline scripts, and every page
// passes the accessibility scan.
import { describe, expect, it } from "vitest";
import { chooseApiKeySignIn, consolePerTest, consoleUrl, expectAccessible, fileOrgs, navLinks, screenshot, signIn, textOf } from "./harness";

const consolePage = consolePerTest();

describe("console sign-in", () => {
  it("serves the console with a strict CSP and the usual security headers, and falls back to it for app routes", async () => {
    for (const pathname of ["/", "/pipelines/some-id"]) {
      const res = await fetch(`${consoleUrl()}${pathname}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/text\/html/);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await res.text()).not.toMatch(/<script>(?!<\/script>)/);
    }
    // The API keeps answering as the API, never with the console's page.
    expect((await fetch(`${consoleUrl()}/api/organization`)).status).toBe(401);
  });

  it("signs in with org id and key, keeps only an HttpOnly cookie, and signs out", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const page = await consolePage.open();
    await textOf(page, "h1");
    await screenshot(page, "sign-in");
    await expectAccessible(page);
    await signIn(page, orgId, adminKey);

    expect(await textOf(page, "header")).toContain(orgId);
    expect(await navLinks(page)).toEqual(["Overview", "Pipelines", "Executions", "Messages", "Channels", "Destinations", "Subscriptions", "Event webhooks", "Agents", "Patients", "Devices", "FHIR browser", "Exports", "Users", "Applications", "Access policies", "API keys", "Connectors", "Bridges", "Organization", "Audit log"]);
    await screenshot(page, "overview-admin");
    await expectAccessible(page);

    const cookies = await page.cookies();
    const session = cookies.find((c) => c.name === "cdis_session");
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: "Strict", path: "/" });
    const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    expect(stored).not.toContain(adminKey);
    expect(stored).not.toContain("cdis_session");
    expect(await page.$eval("input[name=api_key]", () => true).catch(() => false)).toBe(false);

    // A reload stays signed in (the cookie), then sign-out ends the session on the service too.
    await page.reload({ waitUntil: "networkidle0" });
    expect(await navLinks(page)).toContain("Pipelines");
    await Promise.all([page.waitForSelector("input[name=organization]"), page.click("header button")]);
    expect(await textOf(page, ".notice")).toContain("signed out");
    const after = await page.evaluate(async () => (await fetch("/api/v1/console/session")).status);
    expect(after).toBe(401);
  });

  it("shows the API's message when the key is wrong and stays on the sign-in page", async () => {
    const { orgId } = fileOrgs().orgA;
    const page = await consolePage.open();
    await chooseApiKeySignIn(page);
    await page.type("input[name=organization]", orgId);
    await page.type("input[name=api_key]", "cdis_not-a-key");
    await page.click("button[type=submit]");
    expect(await textOf(page, "[role=alert]")).toBe("Invalid API key");
    expect(await page.$eval("input[name=api_key]", (el) => (el as HTMLInputElement).value)).toBe("");
    await screenshot(page, "sign-in-error");
    await expectAccessible(page);
  });
});
