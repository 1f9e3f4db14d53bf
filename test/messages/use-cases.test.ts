// The inbound use cases without HTTP: ingestion of a batch, listing, viewing and reprocessing,
// each scoped to the organization it is given.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getMessage, ingestBatch, listMessages, reprocessMessage } from "../../src/features/inbound/use-cases/messages";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { orgData } from "../../src/platform/org-data";
import { hl7InboundAdapter } from "../../src/standards/hl7v2/inbound";

const ADT = "MSH|^~\\&|UCSYS|HOSP|CDIS|CDIS|20260101120000||ADT^A01^ADT_A01|UC1|P|2.5.1\rPID|1||1^^^HOSP^MR||Doe^Jane";
// Organizations made up on the first shard, without a directory entry: the use cases take their data as given.
const dataOf = (orgId: string) => orgData(env, { orgId, shard: "SHARD_0", movingTo: null });
const org = () => `org-${crypto.randomUUID()}`;
const page = { limit: 10, offset: 0 };

describe("inbound use cases", () => {
  it("keep each organization's messages to itself", async () => {
    const a = org();
    const b = org();
    const [accepted] = await ingestBatch(dataOf(a), hl7InboundAdapter, [{ id: "1", raw: ADT }]);
    expect(accepted).toMatchObject({ status: "accepted" });
    expect((await getMessage(dataOf(a), accepted!.message_id)).raw).toBe(ADT);
    await expect(getMessage(dataOf(b), accepted!.message_id)).rejects.toMatchObject({ status: 404, code: "MESSAGE_NOT_FOUND" });
    await expect(reprocessMessage(dataOf(b), accepted!.message_id)).rejects.toMatchObject({ status: 404 });
    expect((await listMessages(dataOf(b), page)).total).toBe(0);
    expect((await listMessages(dataOf(a), { ...page, protocol: "hl7v2" })).total).toBe(1);
    expect((await listMessages(dataOf(a), { ...page, protocol: "x12" })).total).toBe(0);
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
});
