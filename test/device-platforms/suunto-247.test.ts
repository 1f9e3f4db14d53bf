// Suunto's 24/7 notifications (activity, sleep, recovery samples inline) through the device core
// as the Worker wires it: the org's integration holds the credentials, the link is made through
// OAuth, and each signed notification becomes Observations with the metric table's codes and
// UCUM units (joules → kcal, a fraction → %, seconds → minutes). A manual sync of the device
// without a range reads the default 7 days. Only Suunto's cloud is a mock.
import { beforeAll, describe, expect, it } from "vitest";
import activity from "../fixtures/wearables/suunto-247-activity.json";
import recovery from "../fixtures/wearables/suunto-247-recovery.json";
import sleep from "../fixtures/wearables/suunto-247-sleep.json";
import type { Tenant } from "../support/tenants";
import { SUBSCRIPTION_KEY, SUUNTO_ORIGIN, suuntoMock, suuntoSignedHeaders } from "./mocks/suunto";
import { mockNetwork } from "./mocks/vendor-mock";
import { deliver, linkDevice, wiredTenant } from "./support";

const KIND = "outdoor_watch";
const SECRET = "suunto-247-notify";
const mock = suuntoMock("suunto-247-client", "suunto-247-secret");

interface Obs {
  code: { coding: { system: string; code: string }[] };
  valueQuantity?: { value: number; code: string };
  effectiveDateTime?: string;
  effectivePeriod?: { start: string; end: string };
}

let t: Tenant;
let patientId: string;
let deviceId: string;

beforeAll(async () => {
  ({ t, patientId, deviceId } = await wiredTenant(
    mockNetwork(mock),
    KIND,
    {
      credentials: { client_id: "suunto-247-client", client_secret: "suunto-247-secret", subscription_key: SUBSCRIPTION_KEY, webhook_secret: SECRET },
      settings: { authorize_url: `${SUUNTO_ORIGIN}/oauth/authorize`, token_url: `${SUUNTO_ORIGIN}/oauth/token`, api_base_url: SUUNTO_ORIGIN },
    },
    "Suunto Vertical",
  ));
  const { response } = await linkDevice(t, KIND, mock, { id: "johndoe123" }, { patientId, deviceId });
  expect(response.status, await response.clone().text()).toBe(200);
});

const observations = async (): Promise<Obs[]> =>
  ((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation?subject=Patient/${patientId}&_count=200`)).json()) as { entry?: { resource: Obs }[] }).entry?.map((e) => e.resource) ?? [];
const withCode = (list: Obs[], code: string) => list.filter((o) => o.code.coding.some((c) => c.code === code));
const post = (body: unknown) => {
  const text = JSON.stringify(body);
  return deliver(t, KIND, text, suuntoSignedHeaders(SECRET, text));
};

describe("Suunto 24/7 notifications → Observations", () => {
  it("activity samples: heart rate (8867-4, /min), steps, energy converted to kcal, SpO2 as %, RMSSD HRV under the local code", async () => {
    expect(await post(activity)).toMatchObject({ status: "processed", readings: 9 });
    const stored = await observations();
    expect(withCode(stored, "8867-4").map((o) => [o.valueQuantity?.value, o.valueQuantity?.code]).sort()).toEqual([[62, "/min"], [71, "/min"]]);
    expect(Date.parse(withCode(stored, "8867-4").find((o) => o.valueQuantity?.value === 62)?.effectiveDateTime ?? "")).toBe(Date.parse("2024-01-15T10:00:00+02:00"));
    expect(withCode(stored, "2708-6").map((o) => [o.valueQuantity?.value, o.valueQuantity?.code])).toEqual([[97, "%"]]);
    const kcal = withCode(stored, "41981-2").map((o) => o.valueQuantity?.value ?? 0).sort((a, b) => a - b);
    expect(kcal[0]).toBeCloseTo(15, 3);
    expect(kcal[1]).toBeCloseTo(30, 3);
    expect(withCode(stored, "55423-8")).toHaveLength(3);
    expect(withCode(stored, "hrv-rmssd").map((o) => o.valueQuantity?.value)).toEqual([48]);
    expect(withCode(stored, "80404-7")).toEqual([]);
  });

  it("a sleep: asleep minutes (93832-4) and the stages over the bedtime period, the quality score", async () => {
    expect(await post(sleep)).toMatchObject({ status: "processed", readings: 7 });
    const stored = await observations();
    const asleep = withCode(stored, "93832-4");
    expect(asleep.map((o) => [o.valueQuantity?.value, o.valueQuantity?.code])).toEqual([[415, "min"]]);
    const period = asleep[0]?.effectivePeriod;
    expect([Date.parse(period?.start ?? ""), Date.parse(period?.end ?? "")]).toEqual([Date.parse("2024-01-14T23:40:00+02:00"), Date.parse("2024-01-15T07:02:00+02:00")]);
    expect(withCode(stored, "93831-6").map((o) => o.valueQuantity?.value)).toEqual([90]);
    expect(withCode(stored, "93830-8").map((o) => o.valueQuantity?.value)).toEqual([240]);
    expect(withCode(stored, "93829-0").map((o) => o.valueQuantity?.value)).toEqual([85]);
    expect(withCode(stored, "sleep-score").map((o) => [o.valueQuantity?.value, o.valueQuantity?.code])).toEqual([[81, "{score}"]]);
  });

  it("recovery: the resources balance as a body-battery score; the same notification again adds nothing", async () => {
    expect(await post(recovery)).toMatchObject({ status: "processed", readings: 2 });
    const stored = await observations();
    expect(withCode(stored, "body-battery").map((o) => o.valueQuantity?.value).sort()).toEqual([69, 73]);
    // Another delivery of the same samples (Suunto retrying with a new body is idempotent on the record ids).
    expect(await post({ ...recovery, samples: [...recovery.samples], retried: true })).toMatchObject({ status: "processed" });
    expect(withCode(await observations(), "body-battery")).toHaveLength(2);
  });
});

describe("Suunto 24/7 notifications whose samples the mapping cannot read", () => {
  const syncLogs = async () =>
    ((await (await t.fetch(`/api/v1/devices/${deviceId}/sync-logs`)).json()) as { sync_logs: { state: string; data_types: { data_type: string; state: string; errors: { reason: string; record?: string }[] }[] }[] }).sync_logs;

  it("are recorded as no_readings with the reason, in the webhook event log and the device's sync log, never a silent processed", async () => {
    // Epoch-millisecond timestamps and another entry shape: nothing the 24/7 mapping reads.
    const body = { type: "SUUNTO_247_ACTIVITY_CREATED", username: "johndoe123", samples: [{ timestamp: 1705305600000, data: { hr: 64 } }, { timestamp: 1705305660000, data: { hr: 66 } }] };
    const event = await post(body);
    expect(event).toMatchObject({ status: "no_readings", readings: 0 });
    expect(event.error).toContain("none of the 2 samples has an ISO 8601 timestamp (the first has fields timestamp, data)");
    expect(event.error).toContain("activity event of Suunto user johndoe123");
    const logs = await syncLogs();
    const log = logs.find((l) => l.data_types.some((d) => d.errors.some((e) => e.record === `webhook-event/${event.id}`)));
    expect(log).toMatchObject({ state: "failed" });
    expect(log?.data_types[0]).toMatchObject({ data_type: "activity", state: "failed" });
    expect(log?.data_types[0]?.errors[0]?.reason).toContain(`webhook delivery ${event.id} gave no readings: `);

    // Samples that are not a list, and a type the adapter does not read, say so too.
    const notList = await post({ type: "SUUNTO_247_SLEEP_CREATED", username: "johndoe123", samples: { entries: [] } });
    expect(notList).toMatchObject({ status: "no_readings" });
    expect(notList.error).toContain("samples is not a list (fields entries)");
    const unknownType = await post({ type: "SUUNTO_247_STRESS_CREATED", username: "johndoe123", samples: [{ timestamp: "2024-01-15T10:00:00+02:00", entryData: { Stress: 40 } }] });
    expect(unknownType).toMatchObject({ status: "no_readings" });
    expect(unknownType.error).toContain("the body names no Suunto event the adapter reads (type SUUNTO_247_STRESS_CREATED, fields type, username, samples)");
    const listed = (await (await t.fetch("/api/v1/device-platforms/webhook-events?status=no_readings")).json()) as { events: { id: string }[] };
    expect(listed.events.map((e) => e.id)).toEqual(expect.arrayContaining([event.id, notList.id, unknownType.id]));
  });
});

describe("a manual sync of the Suunto device", () => {
  it("without days or dates reads the default 7 days up to now", async () => {
    const before = Date.now();
    const res = await t.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: {} });
    expect(res.status, await res.clone().text()).toBe(202);
    const { sync_id } = (await res.json()) as { sync_id: string };
    let log: { state: string; from_date: string; to_date: string; data_types: { data_type: string; pages_fetched: number }[] } | undefined;
    for (let i = 0; i < 150; i++) {
      log = (await (await t.fetch(`/api/v1/sync-logs/${sync_id}`)).json()) as typeof log;
      if (log?.state !== "queued" && log?.state !== "running") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(log?.state, JSON.stringify(log)).toBe("completed");
    const [from, to] = [Date.parse(log?.from_date ?? ""), Date.parse(log?.to_date ?? "")];
    expect(to).toBeGreaterThanOrEqual(before - 1000);
    expect(to).toBeLessThanOrEqual(Date.now());
    expect(to - from).toBe(7 * 86_400_000);
    expect(log?.data_types).toMatchObject([{ data_type: "workout", pages_fetched: 1 }]);
  });
});
