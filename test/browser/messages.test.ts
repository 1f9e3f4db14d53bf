// The HL7 messages pages in a real browser: an ADT^A01 posted through the API before any pipeline
// matched it is found by its sender, opened with its segments and fields labelled, and reprocessed
// once a matching pipeline is deployed, showing the execution and the FHIR resources it wrote.
import { describe, expect, inject, it } from "vitest";
import { consolePerTest, consoleUrl, expectAccessible, screenshot, signIn, textOf, visit } from "./harness";

const consolePage = consolePerTest();

async function post<T>(path: string, body?: unknown): Promise<T> {
  const { orgId, adminKey } = inject("orgA");
  const res = await fetch(`${consoleUrl()}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminKey}`, "x-organization-id": orgId, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function settledStatus(id: string): Promise<string> {
  const { orgId, adminKey } = inject("orgA");
  for (let i = 0; i < 60; i++) {
    const res = await fetch(`${consoleUrl()}/api/hl7/messages/${id}`, { headers: { authorization: `Bearer ${adminKey}`, "x-organization-id": orgId } });
    const { status } = (await res.json()) as { status: string };
    if (status !== "received") return status;
    await new Promise((r) => setTimeout(r, 250));
  }
  return "received";
}

describe("HL7 messages pages", () => {
  it("shows a posted message's labelled fields and reprocesses it into a newly deployed pipeline", async () => {
    const { orgId, adminKey } = inject("orgA");
    // A facility of its own, so the pipeline below matches only this test's message.
    const facility = `WARD${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    const raw = [
      `MSH|^~\\&|ADTSYS|${facility}|CDIS|CDIS|20260315083000+0100||ADT^A01^ADT_A01|MSG-${facility}|P|2.5.1`,
      "EVN|A01|20260315083000+0100",
      "PID|1||4711^^^GENHOSP^MR||Musterfrau^Erika^^^^^L||19640812|F|||Heidestr. 17^^Koeln^^51147^DE",
      "PV1|1|I|W1^101^1^GENHOSP||||1234^Doc^Dora|||MED",
    ].join("\r");
    const [accepted] = (await post<{ results: { status: string; message_id: string }[] }>("/api/v1/hl7/messages", { messages: [{ id: facility, raw }] })).results;
    expect(accepted?.status).toBe("accepted");
    const messageId = accepted?.message_id as string;
    // No pipeline matches it yet: the router (asynchronous, right after ingestion) leaves it unrouted.
    expect(await settledStatus(messageId)).toBe("unrouted");

    const page = await consolePage.open();
    await signIn(page, orgId, adminKey);
    await visit(page, "/messages");
    await page.type("input[name=sender]", `ADTSYS|${facility}`);
    await page.waitForFunction((id) => {
      const rows = document.querySelectorAll("main tbody tr");
      return rows.length === 1 && rows[0]?.getAttribute("data-message-id") === id;
    }, {}, messageId);
    await page.select("select[name=status]", "unrouted");
    await page.waitForSelector(`tr[data-message-id='${messageId}'] a`);
    await screenshot(page, "messages-list");
    await expectAccessible(page);

    await page.click(`tr[data-message-id='${messageId}'] a`);
    await page.waitForSelector("[data-message-status=unrouted]");
    expect(await textOf(page, "[data-field='PID-5']")).toMatch(/PID-5 Patient Name.*Musterfrau\^Erika/s);
    expect(await page.$$eval("[data-field='PID-5'] .hl7-components li", (lis) => lis.map((li) => li.textContent))).toEqual(["Musterfrau", "Erika", "L"]);
    expect(await textOf(page, "[data-field='MSH-9']")).toContain("Message Type");
    expect(await textOf(page, "[data-field='MSH-4']")).toContain(facility);
    expect(await textOf(page, "main")).toContain("none deployed matches it");
    await screenshot(page, "message-unrouted");
    await expectAccessible(page);

    // Deploy a pipeline for this sender, then reprocess from the console.
    const pipeline = await post<{ id: string }>("/api/pipelines", {
      name: `ADT from ${facility}`,
      description: "",
      definition: {
        nodes: [
          { id: "in", type: "hl7.inbound_trigger", config: { message_type: "ADT", sending_facility: facility } },
          { id: "fhir", type: "hl7.to_fhir", config: {} },
        ],
        connections: [{ from: { node: "in", port: "message" }, to: { node: "fhir", port: "message" } }],
      },
    });
    await post(`/api/pipelines/${pipeline.id}/deploy`);
    await page.evaluate(() => (Array.from(document.querySelectorAll("main button")).find((b) => b.textContent === "Reprocess") as HTMLButtonElement).click());
    await page.waitForSelector("[data-message-status=processed]", { timeout: 20_000 });
    await page.waitForSelector(".message-executions a");
    const resources = await page.$$eval(".message-resources a", (as) => as.map((a) => a.textContent ?? ""));
    expect(resources.some((r) => r.startsWith("Patient/"))).toBe(true);
    expect(resources.some((r) => r.startsWith("Encounter/"))).toBe(true);
    await screenshot(page, "message-processed");

    // The resource links open the FHIR API with the session; the execution link opens its detail.
    const patientHref = await page.$eval(".message-resources a[href*='/Patient/']", (a) => a.getAttribute("href") ?? "");
    const patient = await page.evaluate(async (href) => (await fetch(href)).json(), patientHref);
    expect(patient).toMatchObject({ resourceType: "Patient", name: [{ family: "Musterfrau" }] });
    await page.click(".message-executions a");
    await page.waitForSelector("[data-execution-status=completed]");
  });
});
