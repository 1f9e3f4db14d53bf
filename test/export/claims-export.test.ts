// Claims resources that X12 interchanges become (837P → Claim and Coverage, 835 →
// ExplanationOfBenefit, 277 → ClaimResponse, 271 → CoverageEligibilityResponse) leave
// through Bulk Data export, system- and patient-level, and only the organization's own.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { type Tenant, createTenant } from "../support/tenants";
import P837 from "../fixtures/x12/837P-subscriber.x12?raw";
import R835 from "../fixtures/x12/835-payment.x12?raw";
import S277 from "../fixtures/x12/277-status.x12?raw";
import E271 from "../fixtures/x12/271-active.x12?raw";

const TYPES = "Claim,ClaimResponse,ExplanationOfBenefit,Coverage,CoverageEligibilityResponse";

async function exported(t: Tenant, path: string): Promise<Record<string, number>> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}${path}?_type=${TYPES}`, { headers: { accept: "application/fhir+json", prefer: "respond-async" } });
  expect(res.status).toBe(202);
  const status = new URL(res.headers.get("content-location")!).pathname;
  await runDurableObjectAlarm(orgObject(env.EXPORT_JOB, t.orgId, status.split("/").pop()!));
  const done = await t.fetch(status);
  expect(done.status).toBe(200);
  const manifest = (await done.json()) as { output: { type: string; count: number }[] };
  return Object.fromEntries(manifest.output.map((o) => [o.type, o.count]));
}

describe("claims export", () => {
  it("exports what the X12 mappings stored, at system and patient level", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "fhir", type: "x12.to_fhir" }], [edge("start", "fhir", "event", "interchange")]));
    for (const raw of [P837, R835, S277, E271]) expect((await run(t, p, { raw })).body.status).toBe("completed");
    const all = await exported(t, "/$export");
    expect(all).toMatchObject({ Claim: 1, Coverage: expect.any(Number), ExplanationOfBenefit: expect.any(Number), ClaimResponse: expect.any(Number), CoverageEligibilityResponse: 1 });
    expect(Object.values(all).every((n) => n > 0)).toBe(true);
    const patient = await exported(t, "/Patient/$export");
    expect(patient.Claim).toBe(1);
    expect(patient.CoverageEligibilityResponse).toBe(1);
    const other = await createTenant();
    expect(await exported(other, "/$export")).toEqual({});
  });
});
