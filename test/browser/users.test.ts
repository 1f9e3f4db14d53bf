// Users and password sign-in in a real browser: an invitation accepted through its link (name and
// password set, then signed in, the header naming the person), password sign-in and its refusals
// (a wrong password, the lockout after 5 failures), the Users page inviting (the link shown
// once), changing a role and disabling and enabling; two-factor sign-in set up from the person's
// account, asked at sign-in and reset by an administrator; a clinician user sees none of the admin
// pages; organization B's administrator sees none of A's users. Axe scans of every page.
import { generate } from "otplib";
import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { consolePerTest, consoleUrl, expectAccessible, fileOrgs, navLinks, screenshot, signIn, submitPasswordSignIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();
const PASSWORD = "correct horse battery staple";

interface Org {
  orgId: string;
  adminKey: string;
}

async function orgApi<T>(org: Org, path: string, method = "GET", body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${consoleUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${org.adminKey}`, "x-organization-id": org.orgId, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

const tag = () => Math.random().toString(36).slice(2, 8);

/** Invites through the API; `accept` also accepts with PASSWORD (an active user). */
async function invite(org: Org, role: string, name: string, accept = false): Promise<{ id: string; email: string; token: string }> {
  const email = `${name.toLowerCase().replace(/[^a-z]+/g, ".")}.${tag()}@example.org`;
  const res = await orgApi<{ id: string; email: string; invitation: { token: string } }>(org, "/api/v1/users/invitations", "POST", { email, name, role });
  if (res.status !== 201) throw new Error(`invite answered ${res.status}: ${JSON.stringify(res.body)}`);
  if (accept) {
    const accepted = await fetch(`${consoleUrl()}/api/v1/auth/invitations/accept`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: res.body.invitation.token, password: PASSWORD }) });
    if (accepted.status !== 200) throw new Error(`accept answered ${accepted.status}`);
  }
  return { id: res.body.id, email: res.body.email, token: res.body.invitation.token };
}

const row = (email: string) => `tr[data-user-email="${email}"]`;
const rowStatusIs = (page: Page, email: string, status: string) => page.waitForFunction((sel: string, s: string) => document.querySelector(sel)?.getAttribute("data-user-status") === s, { timeout: 10_000 }, row(email), status);

describe("users and password sign-in", () => {
  it("an invitation link sets the name and password and signs the person in; they sign in again by password", async () => {
    const a = fileOrgs().orgA;
    const ada = await invite(a, "admin", "Ada Admin");
    const page = await consolePage.open();
    await page.goto(`${consoleUrl()}/accept-invitation#${new URLSearchParams({ org: a.orgId, token: ada.token })}`, { waitUntil: "networkidle0" });
    expect(await textOf(page, "main h1")).toBe("Accept an invitation");
    expect(await page.$eval("input[name=organization]", (el) => (el as HTMLInputElement).value)).toBe(a.orgId);
    await page.type("input[name=name]", "Ada L. Admin");
    await page.type("input[name=password]", PASSWORD);
    await page.type("input[name=password_repeat]", `${PASSWORD}!`);
    expect(await textOf(page, "#password-mismatch")).toContain("differ");
    await screenshot(page, "accept-invitation");
    await expectAccessible(page);
    await page.keyboard.press("Backspace");
    await Promise.all([page.waitForSelector("nav[aria-label=Main]"), page.click("button[type=submit]")]);

    // Signed in as the person: the header names them, the token is gone from the address bar.
    expect(await textOf(page, "header [data-signed-in-as]")).toBe(`Ada L. Admin (${ada.email})`);
    expect(page.url()).toBe(`${consoleUrl()}/`);
    expect(await navLinks(page)).toEqual(expect.arrayContaining(["Users", "Applications", "Event webhooks", "Subscriptions"]));
    const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }));
    expect(stored).not.toContain(PASSWORD);
    expect(stored).not.toContain(ada.token);
    // The link works once.
    const again = await fetch(`${consoleUrl()}/api/v1/auth/invitations/accept`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: ada.token, password: PASSWORD }) });
    expect(again.status).toBe(400);

    // Sign out, then in again by email and password; a wrong password first is refused in words.
    await Promise.all([page.waitForSelector("form[aria-label='Sign in with email and password']"), page.click("header button")]);
    await submitPasswordSignIn(page, a.orgId, ada.email, "not the password");
    expect(await textOf(page, "[role=alert]")).toMatch(/^Invalid email or password\. A disabled account/);
    expect(await page.$eval("input[name=password]", (el) => (el as HTMLInputElement).value)).toBe("");
    await screenshot(page, "sign-in-password-refused");
    await expectAccessible(page);
    // The organization and email stay filled in; only the password is typed again.
    await page.type("input[name=password]", PASSWORD);
    await Promise.all([page.waitForSelector("nav[aria-label=Main]"), page.click("button[type=submit]")]);
    expect(await textOf(page, "header [data-signed-in-as]")).toContain("Ada L. Admin");
    expect(await textOf(page, "main")).toContain(`Signed in as Ada L. Admin (${ada.email}) as admin`);

    // Their own row on the Users page: marked, with nothing to change (no way to lock oneself out).
    await visit(page, "/settings/users");
    await page.waitForSelector(row(ada.email));
    expect(await textOf(page, row(ada.email))).toContain("(you)");
    expect(await page.$(`${row(ada.email)} select`)).toBeNull();
    expect(await page.$(`${row(ada.email)} button`)).toBeNull();
  });

  it("says when an account is locked after 5 failed sign-ins; an administrator unlocks it", async () => {
    const a = fileOrgs().orgA;
    const lee = await invite(a, "clinician", "Lee Locked", true);
    const page = await consolePage.open();
    await page.waitForSelector("input[name=email]");
    await page.type("input[name=organization]", a.orgId);
    await page.type("input[name=email]", lee.email);
    for (let i = 1; i <= 5; i++) {
      // The organization and email stay filled in after a refusal; the password is typed again.
      await page.type("input[name=password]", `wrong password ${i}`);
      await Promise.all([page.waitForResponse((r) => r.url().endsWith("/api/v1/auth/sign-in")), page.click("button[type=submit]")]);
      await page.waitForFunction(() => document.querySelector("button[type=submit]")?.textContent === "Sign in" && document.querySelector("[role=alert]") !== null);
      if (i < 5) expect(await textOf(page, "[role=alert]")).toMatch(/^Invalid email or password/);
    }
    expect(await textOf(page, "[role=alert]")).toBe("Too many failed sign-ins: this account is locked. Try again in 1 minute.");
    await screenshot(page, "sign-in-locked");
    // The Users page shows the lock to an administrator, who unlocks the account.
    const lockedUntil = async () => (await orgApi<{ users: { email: string; locked_until: string | null }[] }>(a, "/api/v1/users?limit=100")).body.users.find((u) => u.email === lee.email)?.locked_until;
    expect(await lockedUntil()).not.toBeNull();
    const admin = await consolePage.open();
    admin.on("dialog", (d) => void d.accept());
    await signIn(admin, a.orgId, a.adminKey);
    await visit(admin, "/settings/users");
    await admin.waitForSelector(`${row(lee.email)} .failure-line`);
    await Promise.all([admin.waitForResponse((r) => r.url().includes("/api/v1/users/") && r.request().method() === "PATCH"), admin.click(`${row(lee.email)} button[data-action=unlock]`)]);
    await admin.waitForFunction((sel) => !document.querySelector(sel), {}, `${row(lee.email)} .failure-line`);
    expect(await lockedUntil()).toBeNull();
  });

  it("a person turns on two-factor sign-in from their account; sign-in then asks for the app's code; an administrator resets it", async () => {
    const a = fileOrgs().orgA;
    const tia = await invite(a, "clinician", "Tia Totp", true);
    const page = await consolePage.open();
    await Promise.all([page.waitForSelector("nav[aria-label=Main]"), submitPasswordSignIn(page, a.orgId, tia.email, PASSWORD)]);
    await Promise.all([page.waitForSelector("[data-totp-state=off]"), page.click("header a[href='/account']")]);
    await page.click("section[aria-labelledby=two-factor] button");
    const setUp = "form[aria-label='Set up two-factor sign-in']";
    const secret = await page.waitForSelector(`${setUp} .secret-value`).then((el) => el?.evaluate((i) => (i as HTMLInputElement).value) ?? "");
    const otpauth = await page.$$eval(`${setUp} .secret-value`, (els) => (els[1] as HTMLInputElement).value);
    expect(otpauth).toMatch(/^otpauth:\/\/totp\/CDIS:/);
    // The QR code to scan: an image (SVG as a data: URL, within the CSP) with an accessible name, the link still offered beside it.
    const qr = await page.waitForSelector(`${setUp} img[data-qr-code]`).then((el) => el?.evaluate((img) => ({ alt: img.getAttribute("alt"), src: img.getAttribute("src") ?? "", drawn: (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0 })));
    expect(qr?.alt).toBe("QR code to scan with your authenticator app");
    expect(qr?.src).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    expect(qr?.drawn).toBe(true);
    await screenshot(page, "account-totp-qr");
    await expectAccessible(page);
    // The code the app shows for the key, as a phone computes it.
    await page.type(`${setUp} input[name=code]`, await generate({ secret }));
    await page.click(`${setUp} button[type=submit]`);
    const codes = await page.waitForSelector("[data-recovery-codes]").then(() => page.$$eval("[data-recovery-codes] code", (els) => els.map((e) => e.textContent ?? "")));
    expect(codes).toHaveLength(10);
    await screenshot(page, "account-recovery-codes");
    await expectAccessible(page);
    await page.click("section[aria-label='Recovery codes'] > button");
    expect(await page.waitForSelector("[data-totp-state=on]").then((el) => el?.evaluate((e) => e.textContent))).toContain("10 recovery codes left");
    // A personal API key for their scripts: shown once, listed, acting as them (a clinician reads FHIR, manages no users).
    await page.type("form[aria-label='Create a personal API key'] input[name=key_name]", "tia's script");
    await page.click("form[aria-label='Create a personal API key'] button[type=submit]");
    const personal = await page.waitForSelector(".secret input.secret-value").then((el) => el?.evaluate((i) => (i as HTMLInputElement).value) ?? "");
    expect(personal).toMatch(/^cdis_/);
    await page.waitForSelector("tr[data-key-name=\"tia's script\"]");
    await expectAccessible(page);
    // Copy: the clipboard, or the text selected for Ctrl+C where the page may not write it.
    await page.click(".secret button[aria-label='Copy the new api key']");
    await page.waitForFunction(() => /^(Copied|Selected: press Ctrl\+C)$/.test(document.querySelector(".secret .copy-row [role=status]")?.textContent ?? ""));
    const asScript = (path: string, org = a.orgId) => fetch(`${consoleUrl()}${path}`, { headers: { authorization: `Bearer ${personal}`, "x-organization-id": org } });
    expect((await asScript(`/fhir/r4/${a.orgId}/Patient?_count=1`)).status).toBe(200);
    expect((await asScript("/api/v1/users")).status).toBe(403);
    // Another organization's data is out of its reach.
    const b = fileOrgs().orgB;
    expect((await asScript(`/fhir/r4/${b.orgId}/Patient?_count=1`, b.orgId)).status).toBe(403);
    // Shown once: gone after Done; the list keeps only its prefix.
    await page.click(".secret > button");
    expect(await page.content()).not.toContain(personal);
    expect(await textOf(page, "tr[data-key-name=\"tia's script\"]")).toContain(personal.slice(0, 13));
    // Another person of the organization sees none of Tia's keys on their own account page.
    const other = await invite(a, "clinician", "Oli Other", true);
    const oli = await consolePage.open();
    await Promise.all([oli.waitForSelector("nav[aria-label=Main]"), submitPasswordSignIn(oli, a.orgId, other.email, PASSWORD)]);
    await visit(oli, "/account");
    expect(await textOf(oli, "section[aria-labelledby=personal-keys]")).toContain("You have no personal keys.");
    // Revoked from the page: the key stops at once.
    page.once("dialog", (d) => void d.accept());
    await page.click("tr[data-key-name=\"tia's script\"] button");
    await page.waitForFunction(() => document.querySelector("tr[data-key-name=\"tia's script\"]")?.textContent?.includes("revoked"));
    expect((await asScript(`/fhir/r4/${a.orgId}/Patient?_count=1`)).status).toBe(401);

    // Signing in again: the password, then the code; a wrong code is refused in words.
    await Promise.all([page.waitForSelector("form[aria-label='Sign in with email and password']"), page.click("header button")]);
    await submitPasswordSignIn(page, a.orgId, tia.email, PASSWORD);
    await page.waitForSelector("form[aria-label='Two-factor sign-in'] input[name=code]");
    const next = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
    await page.type("input[name=code]", next === "000000" ? "111111" : "000000");
    await page.click("form[aria-label='Two-factor sign-in'] button[type=submit]");
    expect(await page.waitForSelector("[role=alert]").then((el) => el?.evaluate((e) => e.textContent))).toMatch(/^That code is not right, or was already used/);
    await screenshot(page, "sign-in-second-factor");
    await expectAccessible(page);
    await page.type("input[name=code]", next);
    await Promise.all([page.waitForSelector("nav[aria-label=Main]"), page.click("form[aria-label='Two-factor sign-in'] button[type=submit]")]);
    expect(await textOf(page, "header [data-signed-in-as]")).toContain("Tia Totp");

    // A lost phone: an administrator resets it, and the password alone signs in again.
    const admin = await consolePage.open();
    admin.on("dialog", (d) => void d.accept());
    await signIn(admin, a.orgId, a.adminKey);
    await visit(admin, "/settings/users");
    await admin.waitForSelector(`${row(tia.email)} button[data-action=reset-totp]`);
    expect(await textOf(admin, row(tia.email))).toContain("two-factor sign-in on");
    await Promise.all([admin.waitForResponse((r) => r.url().endsWith(`/api/v1/users/${tia.id}/totp`) && r.request().method() === "DELETE"), admin.click(`${row(tia.email)} button[data-action=reset-totp]`)]);
    await admin.waitForFunction((sel) => !document.querySelector(sel), {}, `${row(tia.email)} button[data-action=reset-totp]`);
    const direct = await fetch(`${consoleUrl()}/api/v1/auth/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ organization_id: a.orgId, email: tia.email, password: PASSWORD }) });
    expect(direct.status).toBe(201);
  });

  it("the Users page invites (the link shown once), changes a role and disables and enables a user", async () => {
    const a = fileOrgs().orgA;
    const sam = await invite(a, "clinician", "Sam Clinician", true);
    const page = await consolePage.open();
    page.on("dialog", (d) => void d.accept());
    await signIn(page, a.orgId, a.adminKey);
    await page.click("nav[aria-label=Main] a[href='/settings/users']");
    await page.waitForSelector("form[aria-label='Invite a user']");

    const email = `nia.new.${tag()}@example.org`;
    await page.type("input[name=email]", email);
    await page.type("input[name=name]", "Nia New");
    await page.select("select[name=role]", "integration_engineer");
    await page.click("form[aria-label='Invite a user'] button[type=submit]");
    const link = await page.waitForSelector("input[aria-label='Invitation link']").then((el) => el?.evaluate((i) => (i as HTMLInputElement).value));
    expect(link).toMatch(new RegExp(`^${consoleUrl()}/accept-invitation#org=${a.orgId}&token=inv_[A-Za-z0-9_-]{43}$`));
    await page.waitForSelector(row(email));
    expect(await page.$eval(row(email), (el) => el.getAttribute("data-user-status"))).toBe("invited");
    expect(await textOf(page, row(email))).toContain("has not accepted yet");
    expect(await page.$(`${row(email)} button`)).toBeNull();
    await screenshot(page, "users-invited");
    await expectAccessible(page);
    // Shown once: after Done, nothing on the page holds the token.
    const token = new URLSearchParams(new URL(link ?? "").hash.slice(1)).get("token") ?? "";
    await page.click(".secret button");
    expect(await page.content()).not.toContain(token);
    // The link is the real thing: it accepts the invitation.
    const accepted = await fetch(`${consoleUrl()}/api/v1/auth/invitations/accept`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, password: PASSWORD }) });
    expect(accepted.status).toBe(200);

    // Role change (confirmed) applies on the service.
    await page.waitForSelector(row(sam.email));
    await page.select(`select[aria-label="Role of Sam Clinician"]`, "auditor");
    await page.waitForFunction((sel: string) => (document.querySelector(sel) as HTMLSelectElement | null)?.value === "auditor" && !(document.querySelector(sel) as HTMLSelectElement).disabled, {}, `select[aria-label="Role of Sam Clinician"]`);
    const listed = async () => (await orgApi<{ users: { email: string; role: string; status: string }[] }>(a, "/api/v1/users?limit=100")).body.users.find((u) => u.email === sam.email);
    await expect.poll(async () => (await listed())?.role).toBe("auditor");

    // Disable: the row says so and password sign-in is refused; enable again.
    await page.click(`${row(sam.email)} button`);
    await rowStatusIs(page, sam.email, "disabled");
    const refused = await fetch(`${consoleUrl()}/api/v1/auth/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ organization_id: a.orgId, email: sam.email, password: PASSWORD }) });
    expect(refused.status).toBe(401);
    await screenshot(page, "users-disabled");
    await expectAccessible(page);
    expect(await textOf(page, `${row(sam.email)} button`)).toBe("Enable Sam Clinician");
    await page.click(`${row(sam.email)} button`);
    await rowStatusIs(page, sam.email, "active");
    expect((await listed())?.status).toBe("active");
  });

  it("a clinician signed in by password sees none of the admin pages, which say not allowed", async () => {
    const a = fileOrgs().orgA;
    const cam = await invite(a, "clinician", "Cam Clinician", true);
    const page = await consolePage.open();
    await Promise.all([page.waitForSelector("nav[aria-label=Main]"), submitPasswordSignIn(page, a.orgId, cam.email, PASSWORD)]);
    expect(await textOf(page, "header")).toContain("Cam Clinician");
    const links = await navLinks(page);
    expect(links).toContain("Patients");
    for (const hidden of ["Users", "Applications", "Access policies", "Event webhooks", "Subscriptions", "API keys"]) expect(links).not.toContain(hidden);
    await visit(page, "/settings/users");
    expect(await textOf(page, "main h1")).toBe("Not allowed");
    // The rest by the console's own navigation (no reload): each says not allowed too.
    for (const [path, what] of [["/settings/applications", "manage client applications"], ["/webhooks", "manage event webhooks"], ["/subscriptions", "see subscriptions"]] as const) {
      await page.evaluate((p: string) => history.pushState(null, "", p), path);
      await page.waitForFunction((w: string) => document.querySelector("main [role=alert]")?.textContent === `Not allowedYour role may not ${w}. Ask an administrator of your organization.`, {}, what);
    }
    await screenshot(page, "clinician-users-refused");
    await expectAccessible(page);
    const statuses = await page.evaluate(async () => Promise.all(["/api/v1/users", "/api/v1/client-applications", "/api/v1/webhook-endpoints"].map(async (p) => (await fetch(p)).status)));
    expect(statuses).toEqual([403, 403, 403]);
  });

  it("organization B's administrator sees none of A's users and cannot change them", async () => {
    const a = fileOrgs().orgA;
    const b = fileOrgs().orgB;
    const ours = await invite(a, "auditor", "Only In A", true);
    const theirs = await invite(b, "auditor", "Only In B");
    const page = await consolePage.open();
    await signIn(page, b.orgId, b.adminKey);
    await visit(page, "/settings/users");
    await page.waitForSelector(row(theirs.email));
    expect(await textOf(page, "main table")).not.toContain(ours.email);
    expect(await page.$(row(ours.email))).toBeNull();
    const patched = await page.evaluate(async (id: string) => (await fetch(`/api/v1/users/${id}`, { method: "PATCH", headers: { "x-cdis-console": "1", "content-type": "application/json" }, body: JSON.stringify({ status: "disabled" }) })).status, ours.id);
    expect(patched).toBe(404);
    // A's user cannot sign in to B either.
    await Promise.all([page.waitForSelector("form[aria-label='Sign in with email and password']"), page.click("header button")]);
    await submitPasswordSignIn(page, b.orgId, ours.email, PASSWORD);
    expect(await textOf(page, "[role=alert]")).toMatch(/^Invalid email or password/);
  });
});
