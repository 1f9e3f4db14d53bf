// The inbound use cases without HTTP: ingestion of a batch, listing, viewing and reprocessing,
// each scoped to the organization it is given.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getMessage, ingestBatch, listMessages, reprocessMessage } from "../../src/features/inbound/use-cases/messages";
import { database } from "../../src/platform/db/client";
import { hl7InboundAdapter } from "../../src/standards/hl7v2/inbound";

const ADT = "MSH|^~\\&|UCSYS|HOSP|CDIS|CDIS|20260101120000||ADT^A01^ADT_A01|UC1|P|2.5.1\rPID|1||1^^^HOSP^MR||Doe^Jane";
const db = database(env.DB);
const org = () => `org-${crypto.randomUUID()}`;
const page = { limit: 10, offset: 0 };

describe("inbound use cases", () => {
  it("keep each organization's messages to itself", async () => {
    const a = org();
    const b = org();
    const [accepted] = await ingestBatch(db, env, a, hl7InboundAdapter, [{ id: "1", raw: ADT }]);
    expect(accepted).toMatchObject({ status: "accepted" });
    expect((await getMessage(db, env, a, accepted!.message_id)).raw).toBe(ADT);
    await expect(getMessage(db, env, b, accepted!.message_id)).rejects.toMatchObject({ status: 404, code: "MESSAGE_NOT_FOUND" });
    await expect(reprocessMessage(db, env, b, accepted!.message_id)).rejects.toMatchObject({ status: 404 });
    expect((await listMessages(db, env, b, page)).total).toBe(0);
    expect((await listMessages(db, env, a, { ...page, protocol: "hl7v2" })).total).toBe(1);
    expect((await listMessages(db, env, a, { ...page, protocol: "x12" })).total).toBe(0);
  });

  it("reprocess only what was routed or failed, not what waits or was rejected", async () => {
    const a = org();
    const [waiting, rejected] = await ingestBatch(db, env, a, hl7InboundAdapter, [
      { id: "w", raw: ADT.replace("UC1", "UC2") },
      { id: "r", raw: "no MSH" },
    ]);
    await expect(reprocessMessage(db, env, a, waiting!.message_id)).rejects.toMatchObject({ status: 409, code: "MESSAGE_PENDING" });
    await expect(reprocessMessage(db, env, a, rejected!.message_id)).rejects.toMatchObject({ status: 409, code: "MESSAGE_NOT_REPROCESSABLE" });
  });
});
