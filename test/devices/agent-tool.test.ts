// The agents' vitals_query tool, wired by the composition root to the device vitals use case.
import { describe, expect, it } from "vitest";
import { builtinTools } from "../../src/features/agents/tools/builtin";
import type { Principal } from "../../src/features/tenancy/auth/permissions";
import { agentServicesFor } from "../../src/main/wiring";
import { createTenant } from "../support/tenants";
import { createPatient, linkDevice, minutesAgo, postReadings, reading } from "./support";

describe("vitals_query agent tool", () => {
  it("answers the vitals of this org's patient and refuses another org's", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient);
    await postReadings(t, [reading(patient, device, { metric: "spo2", value: 97, unit: "%", time: { at: minutesAgo(20) } })]);
    const principal: Principal = { orgId: t.orgId, keyId: t.keyId, keyName: "admin key", role: "admin", scopes: [] };
    const tool = builtinTools(agentServicesFor(t.ctx, principal)).find((x) => x.name === "vitals_query")!;
    expect(await tool.execute({ patient_id: patient, metric: "spo2", days: 1 }, { agentId: "a" })).toMatchObject({ metric: "spo2", unit: "%", summary: { count: 1, average: 97 } });
    await expect(tool.execute({ patient_id: patient, metric: "mood", days: 1 }, { agentId: "a" })).rejects.toThrow(/Unknown metric/);
    const other = await createTenant();
    const foreign = builtinTools(agentServicesFor(other.ctx, { ...principal, orgId: other.orgId, keyId: other.keyId })).find((x) => x.name === "vitals_query")!;
    await expect(foreign.execute({ patient_id: patient, metric: "spo2", days: 1 }, { agentId: "a" })).rejects.toMatchObject({ status: 404 });
  });
});
