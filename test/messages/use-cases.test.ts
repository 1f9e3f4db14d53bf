// The inbound use cases without HTTP: ingestion of a batch, listing, viewing and reprocessing,
// each scoped to the organization it is given.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { InboundAdapters } from "../../src/features/inbound/adapters";
import { getMessage, ingestBatch, listMessages, listSenders, messageStats, reprocessMessage } from "../../src/features/inbound/use-cases/messages";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { orgData } from "../../src/platform/org-data";
import { hl7InboundAdapter } from "../../src/standards/hl7v2/inbound";

const ADT = "MSH|^~\\&|UCSYS|HOSP|CDIS|CDIS|20260101120000||ADT^A01^ADT_A01|UC1|P|2.5.1\rPID|1||1^^^HOSP^MR||Doe^Jane";
// Organizations made up on the first shard, without a directory entry: the use cases take their data as given.
const dataOf = (orgId: string) => orgData(env, { orgId, shard: "SHARD_0", movingTo: null });
const org = () => `org-${crypto.randomUUID()}`;
const page = { limit: 10, offset: 0 };
const adapters = new InboundAdapters([hl7InboundAdapter]);
/** An ADT^A01 of its own control id for the patient with this MRN and family name. */
const adtFor = (control: string, mrn: string, family: string, sender = "UCSYS") => ADT.replace("UC1", control).replace("UCSYS", sender).replace("1^^^HOSP^MR||Doe", `${mrn}^^^HOSP^MR||${family}`);

describe("inbound use cases", () => {
  it("keep each organization's messages to itself", async () => {
    const a = org();
    const b = org();
    const [accepted] = await ingestBatch(dataOf(a), hl7InboundAdapter, [{ id: "1", raw: ADT }]);
    expect(accepted).toMatchObject({ status: "accepted" });
    expect((await getMessage(dataOf(a), accepted!.message_id)).raw).toBe(ADT);
    await expect(getMessage(dataOf(b), accepted!.message_id)).rejects.toMatchObject({ status: 404, code: "MESSAGE_NOT_FOUND" });
    await expect(reprocessMessage(dataOf(b), accepted!.message_id)).rejects.toMatchObject({ status: 404 });
    expect((await listMessages(dataOf(b), adapters, page)).total).toBe(0);
    expect((await listMessages(dataOf(a), adapters, { ...page, protocol: "hl7v2" })).total).toBe(1);
    expect((await listMessages(dataOf(a), adapters, { ...page, protocol: "x12" })).total).toBe(0);
    // The content search, the senders and the dashboard's counts see only the caller's organization.
    expect((await listMessages(dataOf(b), adapters, { ...page, field: "PID-3", value: "1" })).total).toBe(0);
    expect((await listMessages(dataOf(a), adapters, { ...page, field: "PID-3", value: "1" })).total).toBe(1);
    expect((await listMessages(dataOf(b), adapters, { ...page, text: "Doe^Jane" })).total).toBe(0);
    expect(await listSenders(dataOf(b))).toEqual([]);
    expect((await messageStats(dataOf(b), 24)).routes).toEqual([]);
  });

  it("reprocess only what was routed or failed, not what waits or was rejected", async () => {
    const a = org();
    const [waiting, rejected] = await ingestBatch(dataOf(a), hl7InboundAdapter, [
      { id: "w", raw: ADT.replace("UC1", "UC2") },
      { id: "r", raw: "no MSH" },
    ]);
    await expect(reprocessMessage(dataOf(a), waiting!.message_id)).rejects.toMatchObject({ status: 409, code: "MESSAGE_PENDING" });
    await expect(reprocessMessage(dataOf(a), rejected!.message_id)).rejects.toMatchObject({ status: 409, code: "MESSAGE_NOT_REPROCESSABLE" });
  });

  it("stop draining a sender of an organization the directory does not know, instead of failing every alarm", async () => {
    const a = org();
    await ingestBatch(dataOf(a), hl7InboundAdapter, [{ id: "1", raw: ADT }]);
    const router = orgObject(env.MESSAGE_ROUTER, a, "hl7v2:UCSYS|HOSP");
    await router.kick(a, "hl7v2:UCSYS|HOSP");
    // The alarm runs without throwing and leaves no alarm or state behind to retry.
    expect(await runDurableObjectAlarm(router)).toBe(true);
    expect(await runDurableObjectAlarm(router)).toBe(false);
  });

  it("find messages by the value at a field path and by their text, a page at a time, newest first", async () => {
    const a = org();
    await ingestBatch(dataOf(a), hl7InboundAdapter, [
      { id: "1", raw: adtFor("F1", "4711", "Musterfrau") },
      { id: "2", raw: adtFor("F2", "4711", "Mustermann") },
      { id: "3", raw: adtFor("F3", "47110", "Musterfrau") },
      { id: "4", raw: adtFor("F4", "9", "Other", "LABSYS") },
    ]);
    const found = async (q: Record<string, string | number>) => (await listMessages(dataOf(a), adapters, { ...page, ...q })).rows.map((r) => r.controlId);
    // PID-3 without a component compares each repetition's first component: 47110 is not 4711.
    expect(await found({ field: "PID-3", value: "4711" })).toEqual(["F2", "F1"]);
    expect(await found({ field: "PID-3.1", value: "4711", limit: 1, offset: 1 })).toEqual(["F1"]);
    expect((await listMessages(dataOf(a), adapters, { ...page, field: "PID-3", value: "4711", limit: 1 })).total).toBe(2);
    expect(await found({ field: "PID-5.1", value: "musterfrau" })).toEqual(["F3", "F1"]);
    expect(await found({ field: "PID-5.1", value: "Musterfrau", sender: "UCSYS|HOSP", control_id: "F1" })).toEqual(["F1"]);
    expect(await found({ field: "MSH-3", value: "LABSYS" })).toEqual(["F4"]);
    expect(await found({ text: "mustermann" })).toEqual(["F2"]);
    // % and _ are literal, not patterns.
    expect(await found({ text: "%" })).toEqual([]);
    await expect(listMessages(dataOf(a), adapters, { ...page, field: "PID" , value: "1" })).rejects.toMatchObject({ status: 400, code: "BAD_REQUEST" });
    await expect(listMessages(dataOf(a), adapters, { ...page, field: "PID-3" })).rejects.toMatchObject({ status: 400 });
  });

  it("list the senders seen and count each route's messages by outcome, hour by hour", async () => {
    const a = org();
    await ingestBatch(dataOf(a), hl7InboundAdapter, [
      { id: "1", raw: adtFor("S1", "1", "A") },
      { id: "2", raw: adtFor("S2", "2", "B") },
      { id: "3", raw: adtFor("S3", "3", "C", "LABSYS"), received_at: new Date(Date.now() - 3 * 3_600_000).toISOString() },
      { id: "4", raw: adtFor("S4", "4", "D", "LABSYS"), received_at: "2020-01-01T00:00:00+01:00" },
      { id: "5", raw: "not HL7" },
    ]);
    expect((await listSenders(dataOf(a))).map((s) => [s.sender, s.count])).toEqual([
      ["UCSYS|HOSP", 2],
      ["LABSYS|HOSP", 2],
    ]);
    const { since, routes } = await messageStats(dataOf(a), 24);
    expect(Date.now() - Date.parse(since)).toBeLessThanOrEqual(24 * 3_600_000);
    const uc = routes.find((r) => r.sender === "UCSYS|HOSP");
    expect(uc).toMatchObject({ protocol: "hl7v2", received: 2, queued: 2, sent: 0, errored: 0 });
    expect(uc?.hours).toHaveLength(24);
    expect(uc?.hours[23]).toMatchObject({ received: 2, queued: 2 });
    // The 2020 message is outside the window; the one of three hours ago is in its hour.
    const lab = routes.find((r) => r.sender === "LABSYS|HOSP");
    expect(lab).toMatchObject({ received: 1 });
    expect(lab?.hours[20]).toMatchObject({ received: 1 });
    expect(routes.find((r) => r.sender === null)).toMatchObject({ received: 1, errored: 1 });
  });
});
