// The HL7 messages pages in a real browser, as Mirth's message browser is used: two ADT messages
// posted through the API before any pipeline matched them are found by their sender (chosen from
// the senders seen), status, MRN, a field path and control id, with the filters kept in the address
// across reload, back and forward; one is opened with its fields and components named, its raw
// text and its ACK; once a matching pipeline is deployed both are reprocessed from a selection
// (confirmed, each one's outcome shown), after which the message shows one attempt, the FHIR it
// became, the answer of the destination it was queued to, and links to the FHIR browser's record; the channels dashboard counts the sender's route and
// the destination's 24 hours, and the overview the organization's (not organization B's).
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LoopbackServer, serveOnLoopback } from "../support/loopback-http";
import { adminApi, consolePerTest, docScreenshot, expectAccessible, fileOrgs, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

async function settledStatus(id: string): Promise<string> {
  for (let i = 0; i < 60; i++) {
    const { status } = (await adminApi(`/api/hl7/messages/${id}`)) as { status: string };
    if (status !== "received") return status;
    await new Promise((r) => setTimeout(r, 250));
  }
  return "received";
}

const rowIds = () => Array.from(document.querySelectorAll("main tbody tr[data-message-id]")).map((r) => r.getAttribute("data-message-id"));

/** Waits until the list shows exactly these messages, in this order. */
async function waitForRows(page: Page, ids: string[]): Promise<void> {
  await page.waitForFunction(
    (want: string) => JSON.stringify(Array.from(document.querySelectorAll("main tbody tr[data-message-id]")).map((r) => r.getAttribute("data-message-id"))) === want,
    {},
    JSON.stringify(ids),
  );
}

describe("HL7 messages pages", () => {
  // The destination the pipeline below queues each message to: it answers with the delivery id.
  let receiver: LoopbackServer;
  beforeAll(async () => {
    receiver = await serveOnLoopback(async (_url, init) => new Response(`received ${(init.headers as Record<string, string>)["x-delivery-id"] ?? ""}`, { status: 200, headers: { "content-type": "text/plain" } }));
  });
  afterAll(() => receiver.close());

  it("finds, reads, reprocesses in bulk and counts a sender's messages", async () => {
    const { orgId, adminKey } = fileOrgs().orgA;
    // A facility and MRNs of its own, so filters and the pipeline below match only this test's messages.
    const facility = `WARD${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    const mrn = `M${Math.floor(Math.random() * 1e9)}`;
    const adt = (control: string, id: string, family: string) =>
      [
        `MSH|^~\\&|ADTSYS|${facility}|CDIS|CDIS|20260315083000+0100||ADT^A01^ADT_A01|${control}|P|2.5.1`,
        "EVN|A01|20260315083000+0100",
        `PID|1||${id}^^^GENHOSP^MR||${family}^Erika^^^^^L||19640812|F|||Heidestr. 17^^Koeln^^51147^DE`,
        "PV1|1|I|W1^101^1^GENHOSP||||1234^Doc^Dora|||MED",
      ].join("\r");
    const posted = (await adminApi("/api/v1/hl7/messages", {
      messages: [
        { id: `${facility}-1`, raw: adt(`A-${facility}`, mrn, "Musterfrau") },
        { id: `${facility}-2`, raw: adt(`B-${facility}`, `${mrn}9`, "Mustermann") },
      ],
    })) as { results: { status: string; message_id: string }[] };
    const [first, second] = posted.results.map((r) => r.message_id) as [string, string];
    // No pipeline matches them yet: the router (asynchronous, right after ingestion) leaves them unrouted.
    expect([await settledStatus(first), await settledStatus(second)]).toEqual(["unrouted", "unrouted"]);

    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/messages");
    // The sender is chosen from the senders seen, not typed.
    const sender = `ADTSYS|${facility}`;
    await page.waitForSelector(`select[name=sender] option[value='${sender}']`);
    await page.select("select[name=sender]", sender);
    await waitForRows(page, [second, first]);
    await page.select("select[name=status]", "unrouted");
    await page.waitForFunction(() => location.search.includes("status=unrouted"));
    expect(new URLSearchParams(await page.evaluate(() => location.search)).get("sender")).toBe(sender);

    // Search by MRN (PID-3): only the first message; the address keeps it across a reload.
    await page.select("select[name=search_kind]", "mrn");
    await page.type("input[name=search]", mrn);
    await page.click("form[aria-label='Search message content'] button[type=submit]");
    await waitForRows(page, [first]);
    await page.reload({ waitUntil: "networkidle0" });
    await page.waitForSelector(`tr[data-message-id='${first}']`);
    expect(await page.evaluate(rowIds)).toEqual([first]);
    expect(await page.$eval("select[name=sender]", (s) => (s as HTMLSelectElement).value)).toBe(sender);
    expect(await page.$eval("input[name=search]", (s) => (s as HTMLInputElement).value)).toBe(mrn);
    await screenshot(page, "messages-search");
    await expectAccessible(page);

    // Any field path: PID-5.1 (family name).
    await page.select("select[name=search_kind]", "field");
    await page.type("input[name=field]", "PID-5.1");
    await page.click("input[name=search]", { count: 3 });
    await page.keyboard.press("Backspace");
    await page.type("input[name=search]", "mustermann");
    await page.click("form[aria-label='Search message content'] button[type=submit]");
    await waitForRows(page, [second]);
    // Back returns to the MRN search, forward to the field search.
    await page.goBack();
    await waitForRows(page, [first]);
    expect(await page.$eval("input[name=search]", (s) => (s as HTMLInputElement).value)).toBe(mrn);
    await page.goForward();
    await waitForRows(page, [second]);

    // Control id, then the message itself.
    await page.select("select[name=search_kind]", "control_id");
    await page.click("input[name=search]", { count: 3 });
    await page.keyboard.press("Backspace");
    await page.type("input[name=search]", `A-${facility}`);
    await page.click("form[aria-label='Search message content'] button[type=submit]");
    await waitForRows(page, [first]);
    await page.click(`tr[data-message-id='${first}'] a`);
    await page.waitForSelector("[data-message-status=unrouted]");
    expect(await textOf(page, "[data-field='PID-5']")).toMatch(/PID-5 Patient Name \(XPN\).*Musterfrau\^Erika/s);
    expect(await page.$$eval("[data-field='PID-5'] .hl7-components li", (lis) => lis.map((li) => li.textContent))).toEqual(["PID-5.1 Family Name Musterfrau", "PID-5.2 Given Name Erika", "PID-5.7 Name Type Code L"]);
    expect(await textOf(page, "[data-component='PID-3.1']")).toBe(`PID-3.1 ID Number ${mrn}`);
    expect(await textOf(page, "[data-field='MSH-9']")).toContain("Message Type");
    expect(await textOf(page, "main")).toContain("none deployed matches it");
    await screenshot(page, "message-unrouted");
    await expectAccessible(page);
    await page.click("#tab-raw");
    expect(await textOf(page, "[data-view=raw]")).toContain(`PID|1||${mrn}^^^GENHOSP^MR||Musterfrau`);
    await page.click("#tab-ack");
    expect(await textOf(page, "[data-view=raw]")).toContain(`MSA|AA|A-${facility}`);
    await expectAccessible(page);

    // Deploy a pipeline for this sender (to FHIR, and the message to a destination), then reprocess both from a selection in the list.
    const destination = (await adminApi("/api/v1/destinations", { name: `Receiver ${facility}`, target: { kind: "url", url: `${receiver.origin}/hl7` } })) as { id: string };
    const pipeline = (await adminApi("/api/pipelines", {
      name: `ADT from ${facility}`,
      description: "",
      definition: {
        nodes: [
          { id: "in", type: "hl7.inbound_trigger", config: { message_type: "ADT", sending_facility: facility } },
          { id: "fhir", type: "hl7.to_fhir", config: {} },
          { id: "out", type: "output.enqueue", config: { destination_id: destination.id } },
        ],
        connections: [
          { from: { node: "in", port: "message" }, to: { node: "fhir", port: "message" } },
          { from: { node: "in", port: "message" }, to: { node: "out", port: "input" } },
        ],
      },
    })) as { id: string };
    await adminApi(`/api/pipelines/${pipeline.id}/deploy`, {});
    await visit(page, `/messages?sender=${encodeURIComponent(sender)}&status=unrouted`);
    await page.waitForSelector(`tr[data-message-id='${second}']`);
    await page.click("thead input[type=checkbox]");
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.accept();
    });
    await page.evaluate(() => (Array.from(document.querySelectorAll("main button")).find((b) => b.textContent?.startsWith("Reprocess selected")) as HTMLButtonElement).click());
    await page.waitForSelector("main [role=status]");
    expect(asked).toMatch(/^Reprocess 2 messages\?/);
    expect(await textOf(page, "main [role=status] p")).toBe("2 queued again, 0 refused.");
    expect(await page.$$eval("[data-outcome=queued]", (o) => o.map((li) => li.getAttribute("data-outcome-of")).sort())).toEqual([first, second].sort());
    expect(await textOf(page, `[data-outcome-of='${first}']`)).toBe(`A-${facility} (${sender}): queued again`);
    await screenshot(page, "messages-reprocessed");
    await expectAccessible(page);

    expect(await settledStatus(first)).toBe("processed");
    await visit(page, `/messages/${first}`);
    await page.waitForSelector("[data-message-status=processed]");
    // The run that processed it is its attempt.
    expect(await page.$$eval(".facts dt", (dts) => dts.find((d) => d.textContent === "Attempts")?.nextElementSibling?.textContent)).toBe("1");
    await page.waitForSelector(".message-executions a");
    const resources = await page.$$eval(".message-resources a", (as) => as.map((a) => a.textContent ?? ""));
    expect(resources.some((r) => r.startsWith("Patient/"))).toBe(true);
    expect(resources.some((r) => r.startsWith("Encounter/"))).toBe(true);
    await page.click("#tab-fhir");
    await page.waitForFunction(() => /"family": "Musterfrau"/.test(document.querySelector("[role=tabpanel]")?.textContent ?? ""));
    // The destination's answer to this message's delivery.
    await page.click("#tab-destinations");
    await page.waitForFunction(() => /delivered.*HTTP 200.*received .+:out:0/s.test(document.querySelector("[role=tabpanel] tbody")?.textContent ?? ""), { timeout: 20_000 });
    await screenshot(page, "message-processed");
    await expectAccessible(page);

    // The resource link opens the console's record view, not the API's JSON.
    await page.click(".message-resources a[href*='/Patient/']");
    await page.waitForFunction(() => location.pathname.startsWith("/fhir-browser/Patient/"));
    await page.waitForFunction(() => document.querySelector("main")?.textContent?.includes("Musterfrau"));

    // The channels dashboard: the sender's route with both messages, sent.
    await visit(page, "/channels");
    const route = `tr[data-route='${sender}']`;
    await page.waitForSelector(route);
    expect(await textOf(page, `${route} [data-figure=received]`)).toBe("2");
    await page.waitForFunction((sel: string) => document.querySelector(sel)?.textContent === "2", {}, `${route} [data-figure=sent]`);
    expect(await page.$eval(`${route} svg`, (s) => s.getAttribute("aria-label"))).toBe(`${sender}: 2 received, 0 errored over 24 hours`);
    // The destination's row: both messages received and sent in these 24 hours, none waiting.
    const row = `tr[data-destination='${destination.id}']`;
    await page.waitForFunction((sel: string) => document.querySelector(sel)?.textContent === "2", { timeout: 20_000 }, `${row} [data-figure=sent]`);
    expect(await textOf(page, `${row} [data-figure=received]`)).toBe("2");
    expect(await textOf(page, `${row} [data-figure=queued]`)).toBe("0");
    expect(await textOf(page, `${row} [data-figure=errored]`)).toBe("0");
    expect(await page.$eval(`${row} svg`, (s) => s.getAttribute("aria-label"))).toBe(`Receiver ${facility}: 2 received, 2 sent, 0 failed attempts over 24 hours`);
    await screenshot(page, "channels");
    await docScreenshot(page, "channels");
    await expectAccessible(page);

    // The overview counts this organization's 24 hours: the two messages in, processed, and the runs that processed them.
    await visit(page, "/");
    await page.waitForSelector("[data-series=messages] [data-total]");
    expect(await textOf(page, "[data-series=messages] [data-total]")).toBe("2");
    expect(await textOf(page, "[data-series=messages] [data-part=processed]")).toBe("processed 2");
    expect(await page.$eval("[data-series=messages] svg", (s) => s.getAttribute("aria-label"))).toBe("Messages in per hour over the last 24 hours: 2 (2 processed)");
    expect(Number(await textOf(page, "[data-series=executions] [data-total]"))).toBeGreaterThanOrEqual(2);
    expect(await textOf(page, "[data-series=exports] [data-total]")).toBe("0");
    expect(await textOf(page, "[data-series=exports]")).toContain("None.");
    await screenshot(page, "overview");
    await docScreenshot(page, "overview");
    await expectAccessible(page);
    // Organization B's overview does not count A's messages.
    const other = await consolePage.open();
    await signIn(other, fileOrgs().orgB.orgId, fileOrgs().orgB.adminKey);
    await other.waitForSelector("[data-series=messages] [data-total]");
    expect(await textOf(other, "[data-series=messages] [data-total]")).toBe("0");
    expect(await textOf(other, "[data-series=executions] [data-total]")).toBe("0");
  });
});
