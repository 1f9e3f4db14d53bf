// The Subscriptions and Event webhooks pages in a real browser, against real HTTP receivers on
// loopback: Subscriptions the FHIR API created are listed with their status, channel and endpoint
// (one turns active on its handshake, one whose receiver answers 503 turns error with its last
// error), and one's page lists its events with their focus and its destination queue; a webhook
// endpoint the API created is listed, one is registered through the form (its signing secret
// shown once), disabled and enabled, and an endpoint's page lists its deliveries. Organization B
// sees none of A's. Axe scans of every page.
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LoopbackServer, serveOnLoopback } from "../support/loopback-http";
import { consolePerTest, consoleUrl, expectAccessible, fileOrgs, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

interface Org {
  orgId: string;
  adminKey: string;
}

let ok: LoopbackServer;
let failing: LoopbackServer;
let received = 0;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  ok = await serveOnLoopback(async () => {
    received++;
    return new Response("ok", { status: 200 });
  });
  failing = await serveOnLoopback(async () => new Response("receiver down", { status: 503 }));
});
// What this file made stops delivering once it is done, so later files' writes queue nothing for it.
afterAll(async () => {
  for (const undo of cleanups) await undo().catch(() => undefined);
  await ok?.close();
  await failing?.close();
});

async function orgFetch(org: Org, path: string, method = "GET", body?: unknown, contentType = "application/json"): Promise<Response> {
  return fetch(`${consoleUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${org.adminKey}`, "x-organization-id": org.orgId, "content-type": contentType },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function created<T>(res: Promise<Response>): Promise<T> {
  const r = await res;
  if (r.status !== 201) throw new Error(`answered ${r.status}: ${await r.text()}`);
  return (await r.json()) as T;
}

async function subscription(org: Org, reason: string, criteria: string, endpoint: string): Promise<string> {
  const sub = await created<{ id: string }>(
    orgFetch(org, `/fhir/r4/${org.orgId}/Subscription`, "POST", { resourceType: "Subscription", status: "requested", reason, criteria, channel: { type: "rest-hook", endpoint, payload: "application/fhir+json" } }, "application/fhir+json"),
  );
  cleanups.push(() => orgFetch(org, `/fhir/r4/${org.orgId}/Subscription/${sub.id}`, "DELETE"));
  return sub.id;
}

async function patient(org: Org, family: string): Promise<string> {
  return (await created<{ id: string }>(orgFetch(org, `/fhir/r4/${org.orgId}/Patient`, "POST", { resourceType: "Patient", name: [{ family }] }, "application/fhir+json"))).id;
}

const attr = (page: Page, sel: string, name: string, want: string, timeout = 30_000) =>
  page.waitForFunction((s: string, n: string, w: string) => document.querySelector(s)?.getAttribute(n) === w, { timeout }, sel, name, want);

describe("outbound listings", () => {
  it("lists the Subscriptions the API created with status, channel, endpoint and last error, and one's events", { timeout: 90_000 }, async () => {
    const a = fileOrgs().orgA;
    const tag = Math.random().toString(36).slice(2, 8);
    const family = `Subscribed${tag}`;
    const good = await subscription(a, `Lab feed ${tag}`, `Patient?family=${family}`, `${ok.origin}/fhir-hook`);
    const broken = await subscription(a, `Broken feed ${tag}`, `Patient?family=${family}`, `${failing.origin}/fhir-hook`);

    const page = await consolePage.open();
    await signIn(page, a.orgId, a.adminKey);
    await page.click("nav[aria-label=Main] a[href='/subscriptions']");
    const goodRow = `tr[data-subscription-id="${good}"]`;
    const brokenRow = `tr[data-subscription-id="${broken}"]`;
    await page.waitForSelector(goodRow);
    expect(await textOf(page, goodRow)).toContain(`Lab feed ${tag}`);
    expect(await textOf(page, goodRow)).toContain(`Patient?family=${family}`);
    expect(await textOf(page, goodRow)).toContain("rest-hook");
    expect(await textOf(page, goodRow)).toContain(`${ok.origin}/fhir-hook`);
    // The handshake makes one active; the other's receiver keeps failing: error, with why (the page refreshes itself).
    await attr(page, goodRow, "data-subscription-status", "active");
    await attr(page, brokenRow, "data-subscription-status", "error");
    expect(await textOf(page, `${brokenRow} td:nth-child(2)`)).toContain("server_error: The receiver answered HTTP 503");
    await page.waitForFunction((s: string) => document.querySelector(`${s} [data-destination-status]`) !== null, {}, brokenRow);
    await screenshot(page, "subscriptions");
    await expectAccessible(page);

    // A matching change is an event: the subscription's page lists it with its focus and its delivery.
    const focus = await patient(a, family);
    await page.click(`${goodRow} a`);
    await page.waitForFunction(() => document.querySelector("main h1")?.textContent?.startsWith("Lab feed"));
    await page.waitForSelector("tr[data-event-number='1']", { timeout: 15_000 });
    const event = await textOf(page, "tr[data-event-number='1']");
    expect(event).toContain("create");
    expect(event).toContain(`Patient/${focus}`);
    expect(await textOf(page, "[data-figure=events]")).toBe("1");
    expect(await page.$eval("tr[data-event-number='1'] td:last-child a", (l) => l.getAttribute("href"))).toMatch(new RegExp(`^/destinations/[^/]+/messages/${good}%3A1$`));
    expect(await textOf(page, "main")).toContain("Delivery");
    await page.waitForSelector("main [data-destination-status]");
    await screenshot(page, "subscription-detail");
    await expectAccessible(page);
    await expect.poll(() => received, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);

    // Another organization's subscription id is not found; its list does not show A's.
    const b = fileOrgs().orgB;
    const other = page;
    await Promise.all([other.waitForSelector("form[aria-label='Sign in with email and password']"), other.click("header button")]);
    await signIn(other, b.orgId, b.adminKey);
    await visit(other, `/subscriptions/${good}`);
    expect(await textOf(other, "[role=alert]")).toMatch(/^Not found/);
    await visit(other, "/subscriptions");
    await other.waitForFunction(() => document.querySelector("main .empty, main table.subscriptions") !== null);
    expect(await textOf(other, "main")).not.toContain(tag);
  });

  it("lists webhook endpoints, registers one with its secret shown once, disables and enables, and shows deliveries", { timeout: 90_000 }, async () => {
    const a = fileOrgs().orgA;
    const tag = Math.random().toString(36).slice(2, 8);
    const viaApi = await created<{ id: string; url: string }>(orgFetch(a, "/api/v1/webhook-endpoints", "POST", { url: `${ok.origin}/hooks/${tag}`, event_types: ["fhir.Patient.created"], description: `API-made ${tag}` }));
    cleanups.push(() => orgFetch(a, `/api/v1/webhook-endpoints/${viaApi.id}`, "DELETE"));

    const page = await consolePage.open();
    page.on("dialog", (d) => void d.accept());
    await signIn(page, a.orgId, a.adminKey);
    await page.click("nav[aria-label=Main] a[href='/webhooks']");
    const apiRow = `tr[data-webhook-id="${viaApi.id}"]`;
    await page.waitForSelector(apiRow);
    expect(await textOf(page, apiRow)).toContain(`API-made ${tag}`);
    expect(await textOf(page, apiRow)).toContain("fhir.Patient.created");

    // Register one through the form: catalog types and a pattern; the secret is shown once.
    await page.waitForSelector("input[name=event_type][value='alert.raised']");
    await page.type("input[name=url]", `${ok.origin}/hooks/form-${tag}`);
    await page.type("input[name=description]", `Form-made ${tag}`);
    await page.click("input[name=event_type][value='alert.raised']");
    await page.type("input[name=event_patterns]", "fhir.Observation.*");
    await page.click("form[aria-label='New webhook endpoint'] button[type=submit]");
    const secret = await page.waitForSelector("input[aria-label='Signing secret']").then((el) => el?.evaluate((i) => (i as HTMLInputElement).value));
    expect(secret).toMatch(/^whsec_/);
    const list = (await (await orgFetch(a, "/api/v1/webhook-endpoints?limit=100")).json()) as { webhook_endpoints: { id: string; description: string | null; event_types: string[] }[] };
    const formMade = list.webhook_endpoints.find((w) => w.description === `Form-made ${tag}`);
    expect(formMade?.event_types).toEqual(["alert.raised", "fhir.Observation.*"]);
    cleanups.push(() => orgFetch(a, `/api/v1/webhook-endpoints/${formMade?.id}`, "DELETE"));
    await page.waitForSelector(`tr[data-webhook-id="${formMade?.id}"]`);
    await screenshot(page, "webhooks");
    await expectAccessible(page);
    await page.click(".secret button");
    expect(await page.content()).not.toContain(secret);

    // Disable and enable the API-made one.
    await page.click(`${apiRow} .row-actions button`);
    await attr(page, apiRow, "data-webhook-enabled", "false", 10_000);
    expect(((await (await orgFetch(a, `/api/v1/webhook-endpoints/${viaApi.id}`)).json()) as { enabled: boolean }).enabled).toBe(false);
    await page.click(`${apiRow} .row-actions button`);
    await attr(page, apiRow, "data-webhook-enabled", "true", 10_000);

    // A Patient created: the endpoint's page lists the delivery, delivered, with its queue.
    await patient(a, `Hooked${tag}`);
    await page.click(`${apiRow} a`);
    await page.waitForSelector("section[aria-labelledby=deliveries-heading]");
    await page.waitForFunction(() => document.querySelector("tr[data-delivery-state=delivered]") !== null, { timeout: 30_000 });
    expect(await textOf(page, "tr[data-delivery-state=delivered]")).toContain("fhir.Patient.created");
    expect(await textOf(page, "tr[data-delivery-state=delivered]")).toContain("HTTP 200");
    await page.waitForSelector("main [data-destination-status]");
    await screenshot(page, "webhook-detail");
    await expectAccessible(page);

    // B does not see A's endpoint, by list or by id.
    const b = fileOrgs().orgB;
    const other = page;
    await Promise.all([other.waitForSelector("form[aria-label='Sign in with email and password']"), other.click("header button")]);
    await signIn(other, b.orgId, b.adminKey);
    await visit(other, `/webhooks/${viaApi.id}`);
    expect(await textOf(other, "[role=alert]")).toMatch(/^Not found/);
    await visit(other, "/webhooks");
    await other.waitForFunction(() => document.querySelector("main .empty, main table.webhooks") !== null);
    expect(await textOf(other, "main")).not.toContain(tag);
  });
});
