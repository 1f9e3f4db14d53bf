// Devices page: Sync now against a stand-in Oura API on loopback (the integration's api_base_url
// points at it; OUTBOUND_ALLOW lets the guard reach 127.0.0.1) with the sync log's live progress,
// an alert rule of each of the five kinds created through the form, and an alert acknowledged and
// resolved; a push-only (MQTT) device linked through the form has no Sync now, and is unlinked.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, consolePerTest, docScreenshot, expectAccessible, fileOrgs, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();
const PAGE_DELAY_MS = 300;

/** Oura API v2's usercollection pages: three heart-rate samples, every other type empty. */
function ouraStandIn(): Server {
  return createServer((req, res) => {
    const type = new URL(req.url ?? "/", "http://x").pathname.split("/")[3];
    const now = Date.now();
    const data = type === "heartrate" ? [1, 2, 3].map((i) => ({ bpm: 60 + i, source: "awake", timestamp: new Date(now - i * 3_600_000).toISOString() })) : [];
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data, next_token: null })), PAGE_DELAY_MS);
  });
}

let vendor: Server;
let vendorUrl: string;

/** A patient with a linked Oura ring; the org's smart_ring integration points at the stand-in. */
async function patientWithRing(): Promise<{ patientId: string; deviceId: string }> {
  const { orgId } = fileOrgs().orgA;
  const integrations = (await adminApi("/api/v1/device-integrations")) as { integrations: { platform: string }[] };
  if (!integrations.integrations.some((i) => i.platform === "smart_ring"))
    await adminApi("/api/v1/device-integrations", { platform: "smart_ring", name: "Oura", credentials: { client_id: "oura-client", client_secret: "oura-secret", api_base_url: vendorUrl } });
  const patient = await adminApi(`/fhir/r4/${orgId}/Patient`, { resourceType: "Patient", name: [{ family: "Ringwearer" }] });
  const device = await adminApi(`/api/v1/patients/${patient.id}/devices`, { name: "Oura Ring Gen3", platform: "smart_ring", platform_user_id: "oura-user-1", tokens: { access_token: "patient-access-token" } });
  return { patientId: String(patient.id), deviceId: String(device.device_id) };
}

beforeAll(async () => {
  vendor = ouraStandIn();
  await new Promise<void>((r) => vendor.listen(0, "127.0.0.1", r));
  vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => vendor.close(() => r())));

describe("Devices page", () => {
  it("shows integrations and a patient's devices; Sync now shows the sync log's progress until it completes", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const { patientId } = await patientWithRing();
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, `/devices?patient=${patientId}`);
    await page.waitForSelector(".device-panel");
    expect(await textOf(page, "section[aria-labelledby=integrations-h] table")).toContain("Active");
    expect(await textOf(page, ".device-panel")).toContain("Oura Ring Gen3");
    await screenshot(page, "devices");
    await expectAccessible(page);

    await page.click("button[aria-label='Sync now Oura Ring Gen3']");
    await page.waitForSelector("section[aria-label='Sync progress']");
    await page.waitForFunction(() => /Sync\s+completed|partially failed/.test(document.querySelector("section[aria-label='Sync progress'] p")?.textContent ?? ""), { timeout: 30_000 });
    const rows = await page.$$eval("section[aria-label='Sync progress'] tbody tr", (trs) => trs.map((tr) => Array.from(tr.cells).map((c) => c.textContent ?? "")));
    const heart = rows.find((r) => r[0] === "heartrate");
    expect(heart?.slice(1, 5)).toEqual(["completed", "1", "3", "3"]);
    await screenshot(page, "devices-synced");
    await docScreenshot(page, "devices");
    await expectAccessible(page);

    // A push-only device linked through the form: no Sync now (the platform descriptor says MQTT
    // does not pull), while the ring keeps it; then unlinked, it leaves the patient's devices.
    await page.type("form[aria-label='Link a device'] [name=name]", "Ward monitor");
    await page.select("form[aria-label='Link a device'] select[name=platform]", "mqtt");
    await page.type("form[aria-label='Link a device'] [name=platform_device_id]", "bed-12");
    await page.click("form[aria-label='Link a device'] button[type=submit]");
    await page.waitForFunction(() => document.querySelectorAll(".device-panel").length === 2);
    const monitor = async () => (await page.$$eval(".device-panel", (ps) => ps.map((p) => p.textContent ?? ""))).find((t) => t.includes("Ward monitor")) ?? "";
    expect(await monitor()).toMatch(/mqtt · active/);
    expect(await monitor()).toContain("Push only");
    expect(await page.$("button[aria-label='Sync now Ward monitor']")).toBeNull();
    expect(await page.$("button[aria-label='Sync now Oura Ring Gen3']")).not.toBeNull();
    await screenshot(page, "devices-linked");
    await expectAccessible(page);
    page.once("dialog", (d) => void d.accept());
    await page.click("button[aria-label='Unlink Ward monitor']");
    await page.waitForFunction(() => document.querySelectorAll(".device-panel").length === 1);
    expect(await monitor()).toBe("");
    expect(await textOf(page, ".device-panel")).toContain("Oura Ring Gen3");
  });

  it("lets a clinician sync but hides the integrations (credentials) meant for administrators", async () => {
    const { orgId, clinicianKey } = fileOrgs().orgA;
    const { patientId } = await patientWithRing();
    const page = await consolePage.open();
    await signIn(page, orgId, clinicianKey);
    await visit(page, `/devices?patient=${patientId}`);
    await page.waitForSelector("button[aria-label='Sync now Oura Ring Gen3']");
    expect(await page.$("section[aria-labelledby=integrations-h]")).toBeNull();
    expect(await page.$("form[aria-label='New integration']")).toBeNull();
  });

  it("creates an alert rule of each kind on a device panel, then acknowledges and resolves the alert a reading raises", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    const { patientId, deviceId } = await patientWithRing();
    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, `/devices?patient=${patientId}`);
    await page.waitForSelector(".device-panel");
    await page.click(".device-panel .actions button[aria-expanded]");
    await page.waitForSelector("form[aria-label='New alert rule']");

    const form = "form[aria-label='New alert rule']";
    const fill = async (name: string, value: string) => {
      await page.click(`${form} [name=${name}]`, { count: 3 });
      await page.keyboard.press("Backspace");
      if (value) await page.type(`${form} [name=${name}]`, value);
    };
    const add = async (kind: string, fields: Record<string, string>, expected: number) => {
      await page.select(`${form} select[name=kind]`, kind);
      for (const [name, value] of Object.entries(fields)) {
        if (name === "direction" || name === "recipients" || name === "severity") await page.select(`${form} select[name=${name}]`, value);
        else await fill(name, value);
      }
      await page.click(`${form} button[type=submit]`);
      await page.waitForFunction((n) => document.querySelectorAll(".alert-rules tbody tr").length === n, {}, expected);
    };
    await add("high_value", { threshold: "150", severity: "high" }, 1);
    await add("low_value", { threshold: "40" }, 2);
    await add("rapid_change", { amount: "30", direction: "rise", span_minutes: "10" }, 3);
    await add("data_absence", { metric: "", span_minutes: "120", recipients: "both" }, 4);
    await add("score_below", { metric: "sleep_score", threshold: "60", recipients: "patient" }, 5);
    const rules = await textOf(page, ".alert-rules table");
    for (const words of ["heart_rate above 150", "heart_rate below 40", "heart_rate rise by 30 within 10 min", "no data for 120 min", "sleep_score score below 60"]) expect(rules).toContain(words);

    // A bad rule shows the API's message (a threshold the API refuses is caught by the form; a
    // pipeline id that is not a UUID reaches the API).
    await add("high_value", { threshold: "200", pipeline_id: "not-a-uuid" }, 5).catch(() => undefined);
    expect(await textOf(page, ".alert-rules [role=alert]")).toMatch(/pipeline_id|uuid/i);
    await screenshot(page, "devices-alert-rules");
    await expectAccessible(page);

    // A heart rate of 190 breaks the high rule: the alert shows, is acknowledged, then resolved.
    await adminApi("/api/v1/devices/readings", {
      readings: [{ patient_id: patientId, device_id: deviceId, metric: "heart_rate", value: 190, unit: "bpm", time: { at: new Date(Date.now() - 60_000).toISOString() }, platform: "smart_ring", source_record_id: crypto.randomUUID() }],
    });
    await visit(page, `/devices?patient=${patientId}`);
    await page.waitForSelector("button[aria-label^='Acknowledge']");
    await screenshot(page, "devices-alerts");
    await page.click("button[aria-label^='Acknowledge']");
    await page.waitForFunction(() => !document.querySelector("button[aria-label^='Acknowledge']"));
    await page.select("select[name=alert_state]", "acknowledged");
    await page.waitForSelector("button[aria-label^='Resolve']");
    await page.click("button[aria-label^='Resolve']");
    await page.waitForFunction(() => /No acknowledged alerts/.test(document.querySelector("section[aria-labelledby=alerts-h]")?.textContent ?? ""));
    await page.select("select[name=alert_state]", "resolved");
    await page.waitForFunction(() => document.querySelectorAll("section[aria-labelledby=alerts-h] tbody tr").length === 1);
  });
});
