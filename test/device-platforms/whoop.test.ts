// WHOOP end to end against the mock: link, signed events (sleep by UUID, recovery by cycle id or
// sleep UUID, deletes), unscored → absent, replay, bad signatures, paging with the running cycle
// left out, 429 with WHOOP's headers, a vendor answer we cannot read → dead letter, unlink.
import { beforeAll, describe, expect, it } from "vitest";
import { getLink } from "../../src/features/devices/platforms/oauth/link-store";
import { whoop } from "../../src/features/devices/platforms/whoop/adapter";
import { platformServices } from "../../src/main/device-platform-services";
import { createTenant, type Tenant } from "../support/tenants";
import { mockNetwork } from "./mocks/vendor-mock";
import { SLEEP_ID, WHOOP_ORIGIN, whoopMock, whoopSignedHeaders } from "./mocks/whoop";
import { configure, deliver, installWorld, linkDevice, type PlatformWorld, postWebhook, replay, webhookEvents } from "./support";

const KIND = "recovery_strap";
const SECRET = "whoop-secret";
const mock = whoopMock("whoop-client", SECRET);
const creds = {
  clientId: "whoop-client",
  clientSecret: SECRET,
  extra: { authorize_url: `${WHOOP_ORIGIN}/oauth/oauth2/auth`, token_url: `${WHOOP_ORIGIN}/oauth/oauth2/token`, api_base_url: `${WHOOP_ORIGIN}/developer` },
};
const user = { id: "10129" };
const event = (type: string, id: string | number) => JSON.stringify({ user_id: 10129, id, type, trace_id: crypto.randomUUID() });

let world: PlatformWorld;
let t: Tenant;

const send = (body: string) => deliver(t, KIND, body, whoopSignedHeaders(SECRET, body));

beforeAll(async () => {
  world = installWorld(mockNetwork(mock));
  t = await createTenant();
  configure(world, t.orgId, KIND, creds);
});

describe("WHOOP", () => {
  it("links with the offline scope and learns the numeric user id", async () => {
    const { authorizationUrl, response } = await linkDevice(t, KIND, mock, user);
    expect(new URL(authorizationUrl).searchParams.get("scope")?.split(" ")).toContain("offline");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ platform_user_id: "10129" });
    expect((await getLink(t.ctx, "dev-1"))?.tokens.refreshToken).toBeTruthy();
  });

  it("sleep.updated fetches the sleep by UUID; durations in ms, performance and efficiency in %", async () => {
    const before = world.readings(t.orgId).length;
    expect(await send(event("sleep.updated", SLEEP_ID))).toMatchObject({ status: "processed", readings: 4 });
    const readings = world.readings(t.orgId).slice(before);
    expect(readings.map((r) => [r.metric, r.value, r.unit])).toEqual([
      ["sleep", 27415794, "ms"],
      ["sleep_performance", 98, "%"],
      ["sleep_efficiency", 91.69533848, "%"],
      ["respiratory_rate", 16.11328125, "/min"],
    ]);
  });

  it("recovery.updated with a cycle id, or with a sleep UUID, reaches the cycle's recovery", async () => {
    expect(await send(event("recovery.updated", 93845))).toMatchObject({ status: "processed", readings: 5 });
    expect(await send(event("recovery.updated", SLEEP_ID))).toMatchObject({ status: "processed", readings: 5 });
    const hrv = world.readings(t.orgId).filter((r) => r.metric === "hrv");
    expect(hrv.at(-1)).toMatchObject({ value: 31.813562, unit: "ms", sourceRecordId: `recovery-${SLEEP_ID}`, attributes: { method: "rmssd" } });
  });

  it("a recovery still PENDING_SCORE gives absent readings, never numbers", async () => {
    const before = world.readings(t.orgId).length;
    await send(event("recovery.updated", 93846));
    const readings = world.readings(t.orgId).slice(before);
    expect(readings).toHaveLength(5);
    expect(readings.every((r) => r.value === undefined && r.absentReason === "not-performed" && r.attributes?.score_state === "PENDING_SCORE")).toBe(true);
  });

  it("*.deleted marks the record for removal; a replay adds nothing; a bad signature stores nothing", async () => {
    // v2: a recovery delete names its sleep, and retracts the recovery's record, not the sleep's.
    const body = event("recovery.deleted", SLEEP_ID);
    expect(await send(body)).toMatchObject({ status: "processed", deleted: 1 });
    // With the absent readings it may have had before it was scored.
    expect(world.ingested.at(-1)?.deleted).toEqual(
      [`recovery-${SLEEP_ID}`, `recovery-${SLEEP_ID}#PENDING_SCORE`, `recovery-${SLEEP_ID}#UNSCORABLE`].map((sourceRecordId) => ({ deviceId: "dev-1", sourceRecordId })),
    );
    const before = (await webhookEvents(t)).length;
    const ingested = world.ingested.length;
    await replay(t, KIND, body, whoopSignedHeaders(SECRET, body));
    expect(world.ingested.length).toBe(ingested);
    const other = event("sleep.updated", SLEEP_ID);
    expect((await postWebhook(KIND, t.orgId, other, whoopSignedHeaders("wrong", other))).status).toBe(401);
    expect((await postWebhook(KIND, t.orgId, other, whoopSignedHeaders(SECRET, other, String(Date.now() - 3_600_000)))).status).toBe(401);
    expect((await webhookEvents(t)).length).toBe(before);
  });

  it("a vendor answer that is not JSON is not retried: the event is dead, with the reason", async () => {
    const dead = await send(event("recovery.updated", 666));
    expect(dead.status).toBe("dead");
    expect(dead.error).toContain("other than JSON");
  });

  it("cycle pages follow next_token, keep kJ, leave the running cycle out, and name 429s with WHOOP's reset", async () => {
    const link = (await getLink(t.ctx, "dev-1"))!;
    const call = { credentials: creds, tokens: link.tokens, fetch: platformServices(t.ctx.env).fetch(t.ctx.env) };
    const device = { deviceId: "dev-1", patientId: "pat-1" };
    const first = await whoop.fetchPage(call, device, { dataType: "cycle", from: "2022-04-20T00:00:00Z", to: "2022-04-27T00:00:00Z" });
    expect(first.readings.find((r) => r.metric === "calories")).toMatchObject({ value: 8288.297, unit: "kJ" });
    expect(first.nextCursor).toBe("MTIzOjEyMzEyMw");
    const second = await whoop.fetchPage(call, device, { dataType: "cycle", from: "2022-04-20T00:00:00Z", to: "2022-04-27T00:00:00Z", cursor: first.nextCursor });
    expect(second.readings).toEqual([]);
    mock.throttleNext(1, { "x-ratelimit-limit": "100, 100;window=60, 10000;window=86400", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "17" });
    await expect(whoop.fetchPage(call, device, { dataType: "cycle", from: "2022-04-20T00:00:00Z", to: "2022-04-27T00:00:00Z" })).rejects.toMatchObject({ kind: "rate_limited", retryAfterSeconds: 17 });
  });

  it("unlink calls WHOOP's DELETE /v2/user/access", async () => {
    const res = await t.fetch("/api/v1/device-platforms/links/dev-1", { method: "DELETE" });
    expect(await res.json()).toMatchObject({ revoked: true, revocation: "revoked" });
    expect(mock.accessDeleted).toBe(1);
  });
});
