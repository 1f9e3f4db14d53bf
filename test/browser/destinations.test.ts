// The Destinations pages in a real browser, against a real HTTP receiver on loopback: a
// destination created through the form delivers messages enqueued through the API (one answered
// 503 once, then delivered on its retry), pausing holds new messages (the depth grows on the
// page without a reload), deleting a non-empty destination is refused in words, resuming delivers
// them, and a message's page shows its HL7 payload a segment per line and both attempts. The
// Bridges page registers, rotates and deletes a bridge. Another organization's destination shows
// "Not found". Axe scans of every page.
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LoopbackServer, serveOnLoopback } from "../support/loopback-http";
import { consolePerTest, consoleUrl, expectAccessible, fileOrgs, navLinks, replaceText, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

interface Received {
  body: string;
  deliveryId: string;
  status: number;
}

let receiver: LoopbackServer;
const received: Received[] = [];
const failedOnce = new Set<string>();

beforeAll(async () => {
  // Answers 200 "accepted <n>", except the first attempt of a message mentioning FAIL-ONCE: 503.
  receiver = await serveOnLoopback(async (_url, init) => {
    const body = init.body ? Buffer.from(init.body as Uint8Array).toString("utf8") : "";
    const deliveryId = (init.headers as Record<string, string>)["x-delivery-id"] ?? "";
    const fail = body.includes("FAIL-ONCE") && !failedOnce.has(deliveryId);
    if (fail) failedOnce.add(deliveryId);
    const status = fail ? 503 : 200;
    received.push({ body, deliveryId, status });
    return new Response(fail ? "receiver busy, try later" : `accepted ${received.length}`, { status, headers: { "content-type": "text/plain" } });
  });
});
afterAll(() => receiver?.close());

async function orgApi<T>(org: { orgId: string; adminKey: string }, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${consoleUrl()}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${org.adminKey}`, "x-organization-id": org.orgId, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const hl7 = (control: string, note: string) =>
  [`MSH|^~\\&|CDIS|HOSP|LIS|LAB|20260401120000||ORU^R01^ORU_R01|${control}|P|2.5.1`, `PID|1||${control}^^^HOSP^MR||Muster^Max`, `OBX|1|TX|NOTE^Note||${note}`].join("\r");

/** Waits until every listed delivery id's row on the destination page is in `state`. */
async function rowsIn(page: Page, ids: string[], state: string): Promise<void> {
  await page.waitForFunction(
    (want: string[], s: string) => want.every((id) => document.querySelector(`tr[data-message-id="${id}"]`)?.getAttribute("data-message-state") === s),
    { timeout: 30_000 },
    ids,
    state,
  );
}

const depthIs = (page: Page, n: number) =>
  page.waitForFunction((want: number) => document.querySelector("[data-figure=depth]")?.textContent?.trim().startsWith(`${want} `), { timeout: 30_000 }, n);

describe("Destinations pages", () => {
  it("creates a destination, delivers, pauses, resumes and shows a message's attempts", { timeout: 150_000 }, async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const tag = Math.random().toString(36).slice(2, 8);
    const page = await consolePage.open();
    page.on("dialog", (d) => void d.accept());
    await signIn(page, orgId, adminKey);
    await page.waitForSelector("nav[aria-label=Main] a[href='/destinations']");

    // Create it through the form: a URL target (the suite's service allows 127.0.0.1) with short retries.
    await visit(page, "/destinations");
    await page.click("a[href='/destinations/new']");
    await page.waitForSelector("form[aria-label='New destination']");
    await page.type("input[name=name]", `Lab results ${tag}`);
    await page.select("select[name=target_kind]", "url");
    await page.waitForSelector("input[name=url]");
    await page.type("input[name=url]", `${receiver.origin}/results`);
    await page.type("input[name=initial_delay_ms]", "200");
    await page.type("input[name=max_delay_ms]", "400");
    await screenshot(page, "destination-new");
    await expectAccessible(page);
    await Promise.all([page.waitForSelector("[data-destination-status]"), page.click("button[type=submit]")]);
    const destinationId = new URL(page.url()).pathname.split("/")[2] as string;
    expect(await textOf(page, ".destination-config")).toContain(`${receiver.origin}/results`);
    expect(await textOf(page, ".destination-config")).toMatch(/from 200 ms doubling to 400 ms/);

    // Two messages through the API: the page shows both delivered without a reload.
    const first = [`${tag}-1`, `${tag}-2`];
    await orgApi({ orgId, adminKey }, `/api/v1/destinations/${destinationId}/messages`, {
      messages: [
        { id: first[0], key: "patient-1", body: hl7(first[0] as string, "FAIL-ONCE"), content_type: "application/hl7-v2" },
        { id: first[1], key: "patient-2", body: hl7(first[1] as string, "fine"), content_type: "application/hl7-v2" },
      ],
    });
    await rowsIn(page, first, "delivered");
    expect(received.filter((r) => first.includes(r.deliveryId)).map((r) => r.status).sort()).toEqual([200, 200, 503]);

    // Pause: new messages wait and the depth grows on the page.
    await page.click("section[aria-label='Destination actions'] button:first-child");
    await page.waitForSelector("[data-destination-status=paused]");
    const held = [`${tag}-3`, `${tag}-4`, `${tag}-5`];
    await orgApi({ orgId, adminKey }, `/api/v1/destinations/${destinationId}/messages`, { messages: held.map((id) => ({ id, key: "patient-3", body: hl7(id, "held") })) });
    await depthIs(page, 3);
    await rowsIn(page, held, "queued");
    expect(received.some((r) => held.includes(r.deliveryId))).toBe(false);

    // Deleting a destination with waiting messages is refused, in the API's words.
    await page.evaluate(() => (Array.from(document.querySelectorAll("main button")).find((b) => b.textContent === "Delete destination") as HTMLButtonElement).click());
    expect(await textOf(page, "section[aria-label='Destination actions'] [role=alert]")).toMatch(/purge|wait|empty/i);
    await screenshot(page, "destination-paused");
    await expectAccessible(page);

    // The list shows it paused with its depth.
    await visit(page, "/destinations");
    const row = `tr[data-destination-id="${destinationId}"]`;
    await page.waitForSelector(`${row} [data-destination-status=paused]`);
    expect(await textOf(page, `${row} [data-figure=depth]`)).toMatch(/^3/);
    expect(await textOf(page, `${row} td:nth-child(3)`)).toContain(receiver.origin);
    await screenshot(page, "destinations-list");
    await expectAccessible(page);

    // Resume: the held messages are delivered, in order, and the depth falls to 0.
    await page.click(`${row} a`);
    await page.waitForSelector("h1 [data-destination-status=paused]");
    await page.evaluate(() => (Array.from(document.querySelectorAll("main button")).find((b) => b.textContent === "Resume") as HTMLButtonElement).click());
    await page.waitForSelector("[data-destination-status=active]");
    await rowsIn(page, held, "delivered");
    await depthIs(page, 0);
    expect(received.filter((r) => held.includes(r.deliveryId)).map((r) => r.deliveryId)).toEqual(held);

    // Filter by key, then open the message that failed once: its payload and both attempts.
    await page.type("input[name=key]", "patient-1");
    await page.waitForFunction((id: string) => {
      const rows = document.querySelectorAll("table.destination-messages tbody tr");
      return rows.length === 1 && rows[0]?.getAttribute("data-message-id") === id;
    }, { timeout: 10_000 }, first[0] as string);
    await page.click(`tr[data-message-id="${first[0]}"] a`);
    await page.waitForSelector("li[data-attempt='2']");
    const payload = await textOf(page, "pre[data-payload=hl7]");
    expect(payload.split("\n").map((l) => l.slice(0, 3))).toEqual(["MSH", "PID", "OBX"]);
    expect(await textOf(page, "li[data-attempt='1']")).toMatch(/server_error[\s\S]*HTTP 503[\s\S]*receiver busy, try later/);
    expect(await page.$eval("li[data-attempt='1']", (li) => li.getAttribute("data-attempt-ok"))).toBe("false");
    expect(await textOf(page, "li[data-attempt='2'] [data-attempt-status]")).toBe("HTTP 200");
    expect(await textOf(page, "li[data-attempt='2'] [data-answer]")).toMatch(/^accepted \d+/);
    expect(await textOf(page, "[data-message-state]")).toBe("delivered");
    await screenshot(page, "destination-message");
    await expectAccessible(page);

    // Back on the destination: purge the delivered messages (confirmed), the list empties.
    await page.click("main a[href^='/destinations/']");
    await page.waitForSelector("select[name=purge_state]");
    await page.select("select[name=purge_state]", "delivered");
    await page.evaluate(() => (Array.from(document.querySelectorAll("main button")).find((b) => b.textContent === "Purge") as HTMLButtonElement).click());
    expect(await textOf(page, "section[aria-label='Destination actions'] [role=status]")).toBe("Purged: 5 messages");
    await page.waitForFunction(() => document.querySelectorAll("table.destination-messages tbody tr").length === 0, { timeout: 10_000 });
  });

  it("edits a destination's settings, selects messages to skip, and hides another organization's destination", { timeout: 90_000 }, async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const tag = Math.random().toString(36).slice(2, 8);
    const dest = await orgApi<{ id: string }>({ orgId, adminKey }, "/api/v1/destinations", { name: `Held ${tag}`, target: { kind: "url", url: `${receiver.origin}/held` } });
    await fetch(`${consoleUrl()}/api/v1/destinations/${dest.id}/pause`, { method: "POST", headers: { authorization: `Bearer ${adminKey}`, "x-organization-id": orgId } });
    const ids = [`${tag}-a`, `${tag}-b`];
    await orgApi({ orgId, adminKey }, `/api/v1/destinations/${dest.id}/messages`, { messages: ids.map((id) => ({ id, body: `{"n":"${id}"}`, content_type: "application/json" })) });

    const page = await consolePage.open();
    page.on("dialog", (d) => void d.accept());
    await signIn(page, orgId, adminKey);
    await visit(page, `/destinations/${dest.id}/edit`);
    await page.waitForSelector("form[aria-label='Edit destination']");
    expect(await page.$eval("input[name=url]", (i) => (i as HTMLInputElement).value)).toBe(`${receiver.origin}/held`);
    await page.select("select[name=ordering]", "per_key");
    await page.waitForSelector("input[name=concurrency]");
    await replaceText(page, "input[name=concurrency]", "2");
    await replaceText(page, "input[name=timeout_ms]", "5000");
    // A private address is refused by the outbound guard on save: the refusal is shown in words.
    await replaceText(page, "input[name=url]", "http://10.1.2.3/held");
    await page.click("button[type=submit]");
    expect(await textOf(page, "form [role=alert]")).toMatch(/10\.1\.2\.3 is a private address/);
    await replaceText(page, "input[name=url]", `${receiver.origin}/held`);
    await Promise.all([page.waitForSelector(".destination-config"), page.click("button[type=submit]")]);
    expect(await textOf(page, ".destination-config")).toContain("per key, up to 2 keys at once");
    expect(await textOf(page, ".destination-config")).toContain("5.0 s");

    await rowsIn(page, ids, "queued");
    await page.click(`input[aria-label="Select ${ids[0]}"]`);
    await page.evaluate(() => (Array.from(document.querySelectorAll("main button")).find((b) => b.textContent === "Skip selected") as HTMLButtonElement).click());
    expect(await textOf(page, "section[aria-labelledby=messages-heading] [role=status]")).toBe("Skipped: 1 of 1 selected messages");
    await rowsIn(page, [ids[0] as string], "skipped");
    await rowsIn(page, [ids[1] as string], "queued");

    // Organization B's destination id, opened as A: not found.
    const other = await orgApi<{ id: string }>(fileOrgs().orgB, "/api/v1/destinations", { name: `B only ${tag}`, target: { kind: "url", url: `${receiver.origin}/b` } });
    await visit(page, `/destinations/${other.id}`);
    expect(await textOf(page, "main [role=alert] strong")).toBe("Not found");
  });

  it("registers a bridge with its credential shown once, rotates it and deletes it", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const name = `Ward bridge ${Math.random().toString(36).slice(2, 8)}`;
    const page = await consolePage.open();
    page.on("dialog", (d) => void d.accept());
    await signIn(page, orgId, adminKey);
    await visit(page, "/settings/bridges");
    await page.type("input[name=bridge_name]", name);
    await page.click("form[aria-label='Register a bridge'] button[type=submit]");
    await page.waitForSelector("input[aria-label='Bridge credential']");
    const credential = await page.$eval("input[aria-label='Bridge credential']", (i) => (i as HTMLInputElement).value);
    expect(credential.length).toBeGreaterThan(20);
    const bridges = await orgApi<{ bridges: { id: string; name: string; status: string; credential_prefix: string }[] }>({ orgId, adminKey }, "/api/v1/bridges?limit=100");
    const bridge = bridges.bridges.find((b) => b.name === name);
    expect(bridge?.status).toBe("offline");
    expect(credential.startsWith(bridge?.credential_prefix ?? "?")).toBe(true);
    const row = `tr[data-bridge-id="${bridge?.id}"]`;
    await page.waitForSelector(`${row} [data-bridge-status=offline]`);
    expect(await textOf(page, `${row} td:nth-child(3)`)).toBe("never");
    await screenshot(page, "bridges");
    await expectAccessible(page);

    // Done hides the credential for good; rotating shows a new one.
    await page.evaluate(() => (Array.from(document.querySelectorAll("main button")).find((b) => b.textContent === "Done") as HTMLButtonElement).click());
    expect(await page.$("input[aria-label='Bridge credential']")).toBeNull();
    await page.click(`${row} button[aria-label^='Rotate']`);
    await page.waitForSelector("input[aria-label='Bridge credential']");
    const rotated = await page.$eval("input[aria-label='Bridge credential']", (i) => (i as HTMLInputElement).value);
    expect(rotated).not.toBe(credential);

    // A bridge destination offers it in the form's bridge picker.
    await visit(page, "/destinations/new");
    await page.select("select[name=target_kind]", "bridge");
    await page.waitForSelector("select[name=bridge_id]");
    expect(await page.$$eval("select[name=bridge_id] option", (os) => os.map((o) => (o as HTMLOptionElement).value))).toContain(bridge?.id);

    await visit(page, "/settings/bridges");
    await page.click(`${row} button[aria-label^='Delete']`);
    await page.waitForFunction((sel: string) => !document.querySelector(sel), { timeout: 10_000 }, row);
  });

  it("a clinician sees no Destinations (not allowed, API 403) and the bridges without their actions", async () => {
    const { orgId, clinicianKey, adminKey } = fileOrgs().orgA;
    await orgApi({ orgId, adminKey }, "/api/v1/bridges", { name: `Seen by clinicians ${Math.random().toString(36).slice(2, 8)}` });
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    const links = await navLinks(page);
    expect(links).not.toContain("Destinations");
    expect(links).toContain("Bridges");
    await visit(page, "/destinations");
    expect(await textOf(page, "main h1")).toBe("Not allowed");
    expect(await page.evaluate(async () => (await fetch("/api/v1/destinations")).status)).toBe(403);
    await visit(page, "/settings/bridges");
    await page.waitForSelector("tr[data-bridge-id]");
    expect(await page.$("form[aria-label='Register a bridge']")).toBeNull();
    expect(await page.$("tr[data-bridge-id] button")).toBeNull();
    await expectAccessible(page);
  });
});
