// D1 round trips of the message drain, as docs/architecture.md ("The inbound path") counts them:
// per message, the FHIR transaction's reads and its commit, and the message's status with its
// execution records; the drain's reads of its queue, triggers, versions and limits are shared.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { drainSender } from "../../src/features/inbound/drain";
import { messageRouting } from "../../src/features/inbound/handler";
import { ingestMessages } from "../../src/features/inbound/ingest";
import { InboundMessageStore } from "../../src/features/inbound/store";
import { contextFor } from "../../src/main/context";
import { inboundAdapters } from "../../src/main/catalogs";
import { hl7InboundAdapter } from "../../src/standards/hl7v2/inbound";
import { countingD1 } from "../support/d1-counter";
import { createPipeline, definition, edge } from "../support/pipelines";
import { createTenant } from "../support/tenants";

const adt = (n: number) =>
  [
    `MSH|^~\\&|ADTSYS|GENHOSP|CDIS|CDIS|20260315083000||ADT^A01^ADT_A01|RT${n}|P|2.5.1`,
    "EVN|A01|20260315083000",
    `PID|1||${9000 + n}^^^GENHOSP^MR||Doe^Jane${n}||19640812|F`,
    `PV1|1|I|W1^101^1^GENHOSP||||||||||||||||V${n}^^^GENHOSP^VN`,
  ].join("\r");

/** Round trips of one drain pass over `n` messages of one sender. */
async function drainRoundTrips(n: number): Promise<number> {
  const t = await createTenant();
  await createPipeline(
    t,
    definition([{ id: "in", type: "hl7.inbound_trigger", config: {} }, { id: "fhir", type: "hl7.to_fhir", config: {} }], [edge("in", "fhir", "message", "message")]),
  );
  const store = new InboundMessageStore(t.ctx.db, t.orgId, env.BLOBS);
  const batch = Array.from({ length: n }, (_, i) => ({ id: `rt-${i}`, raw: adt(i) }));
  await ingestMessages(store, hl7InboundAdapter, batch);
  const d1 = countingD1(env, t.shard);
  const data = contextFor(d1.env, { orgId: t.orgId, shard: t.shard, movingTo: null });
  // The shared reads are reused for a second in service; on a loaded machine a pass can take
  // longer and read them again, so the count would depend on the machine's speed.
  const routing = messageRouting(data, inboundAdapters, 60_000);
  const counted = new InboundMessageStore(data.db, t.orgId, env.BLOBS);
  try {
    expect(await drainSender(counted, "ADTSYS|GENHOSP", routing.handle, { budgetMs: 60_000 })).toEqual({ state: "idle", processed: n });
  } finally {
    await routing.close();
  }
  expect((await store.list({ status: "processed" }, 100, 0)).total).toBe(n);
  return d1.count;
}

describe("message drain round trips", () => {
  it("makes 3 D1 round trips per message, beyond reads shared by the drain pass", async () => {
    const one = await drainRoundTrips(1);
    const six = await drainRoundTrips(6);
    expect((six - one) / 5).toBe(3);
  });
});
