// The device node family in real pipeline executions: device data (vitals and readings) for
// the trigger's patient, device sync started from a pipeline and awaited.
import { beforeAll, describe, expect, it } from "vitest";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant } from "../support/tenants";
import { createPatient, linkDevice, minutesAgo, postReadings, reading } from "./support";
import { useTestVendor } from "./sync.test-adapter";

beforeAll(useTestVendor);

describe("device nodes", () => {
  it("lists devices.data and devices.sync in the catalog", async () => {
    const t = await createTenant();
    const body = (await (await t.fetch("/api/node-catalog/search/wearable")).json()) as { nodes: { id: string }[] };
    // The alerts' trigger also speaks of wearables; the device nodes are there beside it.
    expect(body.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(["devices.data", "devices.sync"]));
  });

  it("reads a patient's vitals and device readings into a pipeline", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient);
    await postReadings(t, [reading(patient, device, { value: 64, time: { at: minutesAgo(40) } }), reading(patient, device, { value: 70, time: { at: minutesAgo(20) } })]);
    const pipeline = await createPipeline(
      t,
      definition(
        [trigger(), { id: "vitals", type: "devices.data", config: { metric: "heart_rate", days: 1 } }, { id: "readings", type: "devices.data", config: { mode: "readings", days: 1 } }],
        [edge("start", "vitals", "event", "patient"), edge("start", "readings", "event", "patient")],
      ),
    );
    const { body } = await run(t, pipeline, { patient_id: patient });
    expect(body.status).toBe("completed");
        const outputs = body.outputs as { vitals: { output: { summary: unknown } }; readings: { output: { observations: { valueQuantity: { value: number } }[] } } };
    expect(outputs.vitals.output.summary).toMatchObject({ count: 2, average: 67 });
    expect(outputs.readings.output.observations.map((o) => o.valueQuantity.value)).toEqual([70, 64]);
  });

  it("starts a device sync and waits for it", async () => {
    const t = await createTenant();
    await t.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: "test_vendor", name: "Vendor", credentials: { client_id: "c" } } });
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient, { platform: "test_vendor", platform_user_id: "node-user", tokens: { access_token: "patient-access-token" } });
    const pipeline = await createPipeline(t, definition([trigger(), { id: "sync", type: "devices.sync", config: { data_types: ["heart_rate"], days: 1, wait_seconds: 20 } }], [edge("start", "sync", "event", "device")]));
    const { body } = await run(t, pipeline, { device_id: device });
    expect(body.status).toBe("completed");
    expect((body.outputs as { sync: { output: { state: string } } }).sync.output.state).toBe("completed");
  });
});
