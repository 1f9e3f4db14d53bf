// The Applications page in a real browser: the organization's token endpoint and JWKS URL shown
// to copy; a JWK Set pasted and judged as it is typed (not JSON, a private key, a wrong curve, a
// scope that is not system/), a client registered with a public one — and the token endpoint the
// page shows grants that client a token for an assertion signed with its private key; its scopes
// edited; deleted. Organization B's administrator does not see A's client. Axe scans.
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { consolePerTest, consoleUrl, expectAccessible, fileOrgs, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

/** Replaces a textarea's or input's text as a user pasting would (one input event, not a keystroke each). */
async function paste(page: Page, selector: string, text: string): Promise<void> {
  await page.click(selector);
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.press("Backspace");
  await page.keyboard.sendCharacter(text);
}

const check = (page: Page) => textOf(page, "#jwks-check");
const checkState = (page: Page) => page.$eval("#jwks-check", (el) => el.getAttribute("data-jwks-check"));
const registerDisabled = (page: Page) => page.$eval("form[aria-label='Register an application'] button[type=submit]", (b) => (b as HTMLButtonElement).disabled);

describe("Applications page", () => {
  it("shows the endpoints, judges a pasted JWK Set, registers a client that then gets a token, edits its scopes and deletes it", { timeout: 60_000 }, async () => {
    const a = fileOrgs().orgA;
    const b = fileOrgs().orgB;
    const name = `Lab backend ${Math.random().toString(36).slice(2, 8)}`;
    const { privateKey, publicKey } = await generateKeyPair("ES384", { extractable: true });
    const kid = crypto.randomUUID();
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "ES384", use: "sig" };
    const privateJwk = { ...(await exportJWK(privateKey)), kid };

    const page = await consolePage.open();
    page.on("dialog", (d) => void d.accept());
    await signIn(page, a.orgId, a.adminKey);
    await page.click("nav[aria-label=Main] a[href='/settings/applications']");
    await page.waitForSelector("form[aria-label='Register an application']");

    // The endpoints a client is configured with, as the SMART configuration names them.
    await page.waitForSelector(".copy-field input");
    const values = await page.$$eval(".copy-field", (fields) => fields.map((f) => [f.querySelector("label")?.textContent, (f.querySelector("input") as HTMLInputElement).value]));
    const tokenEndpoint = `${consoleUrl()}/fhir/r4/${a.orgId}/auth/token`;
    expect(values).toEqual([
      ["Token endpoint", tokenEndpoint],
      ["JWKS URL", `${consoleUrl()}/fhir/r4/${a.orgId}/.well-known/jwks.json`],
      ["FHIR base URL", `${consoleUrl()}/fhir/r4/${a.orgId}`],
    ]);
    expect((await fetch(values[1]?.[1] ?? "")).status).toBe(200);

    // Judged as typed, by the service's rules; Register stays disabled until the set is usable.
    await page.type("input[name=name]", name);
    await paste(page, "textarea[name=jwks]", '{"keys": [');
    expect(await check(page)).toMatch(/^Not JSON: /);
    expect(await registerDisabled(page)).toBe(true);
    await paste(page, "textarea[name=jwks]", JSON.stringify({ keys: [privateJwk] }));
    expect(await check(page)).toBe("keys[0] is a private or symmetric key; register public keys only");
    expect(await checkState(page)).toBe("invalid");
    await screenshot(page, "applications-bad-jwks");
    await expectAccessible(page);
    await paste(page, "textarea[name=jwks]", JSON.stringify({ keys: [{ ...publicJwk, crv: "P-256" }] }));
    expect(await check(page)).toBe("keys[0]: an EC key must be P-384 with x and y (ES384)");
    await paste(page, "textarea[name=jwks]", JSON.stringify({ keys: [publicJwk] }, null, 2));
    expect(await check(page)).toBe(`Usable: 1 key: EC P-384 (kid ${kid})`);
    await paste(page, "textarea[name=scopes]", "system/Patient.rs patient/Observation.read");
    expect(await textOf(page, "#scopes-check")).toMatch(/^Not system\/ SMART scopes: patient\/Observation\.read/);
    expect(await registerDisabled(page)).toBe(true);
    await paste(page, "textarea[name=scopes]", "system/Patient.rs\nsystem/Observation.read");
    expect(await registerDisabled(page)).toBe(false);
    await page.click("form[aria-label='Register an application'] button[type=submit]");
    const clientId = await page.waitForSelector(".secret code[data-client-id]").then((el) => el?.evaluate((c) => c.textContent ?? ""));
    expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
    const rowSel = `tr[data-client-id="${clientId}"]`;
    await page.waitForSelector(rowSel);
    expect(await textOf(page, rowSel)).toContain(name);
    expect(await textOf(page, rowSel)).toContain(`1 key: EC P-384 (kid ${kid})`);
    await screenshot(page, "applications");
    await expectAccessible(page);

    // The endpoint the page shows answers the client a token for an assertion signed with its key.
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({}).setProtectedHeader({ alg: "ES384", kid, typ: "JWT" }).setIssuer(clientId ?? "").setSubject(clientId ?? "").setAudience(tokenEndpoint).setExpirationTime(now + 240).setJti(crypto.randomUUID()).sign(privateKey);
    const form = new URLSearchParams({ grant_type: "client_credentials", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: assertion, scope: "system/Patient.rs" });
    const token = await fetch(tokenEndpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ token_type: "Bearer", scope: "system/Patient.rs" });

    // Edit its scopes: a bad one is caught before saving, a good set is saved.
    await page.click(`${rowSel} .row-actions button`);
    const editor = `${rowSel} form.scope-edit textarea`;
    await page.waitForSelector(editor);
    await paste(page, editor, "system/Patient.rs\nsystem/Encounter.nope");
    expect(await textOf(page, `${rowSel} form.scope-edit .validity`)).toContain("system/Encounter.nope");
    await paste(page, editor, "system/Patient.rs\nsystem/Encounter.read");
    await page.click(`${rowSel} form.scope-edit button[type=submit]`);
    await page.waitForFunction((sel: string) => document.querySelector(`${sel} ul.scopes`)?.textContent === "system/Patient.rssystem/Encounter.read", {}, rowSel);

    // B's administrator does not see it, nor reach it by id.
    const other = await fetch(`${consoleUrl()}/api/v1/client-applications/${clientId}`, { headers: { authorization: `Bearer ${b.adminKey}`, "x-organization-id": b.orgId } });
    expect(other.status).toBe(404);

    // Delete (confirmed): the row goes.
    await page.click(`${rowSel} .row-actions button:last-child`);
    await page.waitForFunction((sel: string) => document.querySelector(sel) === null, {}, rowSel);
    expect(await textOf(page, "main")).not.toContain(name);
  });

  it("organization B's page lists none of A's applications", async () => {
    const a = fileOrgs().orgA;
    const b = fileOrgs().orgB;
    const name = `A only ${Math.random().toString(36).slice(2, 8)}`;
    const { publicKey } = await generateKeyPair("ES384", { extractable: true });
    const res = await fetch(`${consoleUrl()}/api/v1/client-applications`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.adminKey}`, "x-organization-id": a.orgId, "content-type": "application/json" },
      body: JSON.stringify({ name, jwks: { keys: [await exportJWK(publicKey)] }, scopes: ["system/Patient.rs"] }),
    });
    expect(res.status).toBe(201);
    const page = await consolePage.open();
    await signIn(page, b.orgId, b.adminKey);
    await visit(page, "/settings/applications");
    await page.waitForSelector(".copy-field input");
    expect(await page.$eval(".copy-field input", (i) => (i as HTMLInputElement).value)).toContain(`/fhir/r4/${b.orgId}/auth/token`);
    await page.waitForFunction(() => document.querySelector("main .empty, main table.applications") !== null);
    expect(await textOf(page, "main")).not.toContain(name);
    await expectAccessible(page);
  });
});
