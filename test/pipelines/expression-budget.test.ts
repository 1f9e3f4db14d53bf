// Tenant expressions have a step budget (src/platform/step-budget.ts): a runaway JSONata or
// FHIRPath expression fails its node with EXPRESSION_BUDGET_EXCEEDED instead of holding the
// Worker, and other organizations' requests are answered while it runs (issue #32, section 2).
import { describe, expect, it } from "vitest";
import { MAX_EXPRESSION_STEPS } from "../../src/platform/step-budget";
import { resolveLimits } from "../../src/features/tenancy/limits/config";
import { useMemoryFhir } from "../support/memory-fhir";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant } from "../support/tenants";

useMemoryFhir();

const RUNAWAY = "$count([1..1000000].($sum([1..10000])))";
const node = (id: string, type: string, config: Record<string, unknown>) => ({ id, type, config });
const transform = (expression: string) => definition([trigger(), node("t", "data.transform", { expression })], [edge("start", "t", "event")]);

describe("expression budget", () => {
  it("a runaway JSONata expression fails its node with the budget code while another organization's reads are answered", async () => {
    const noisy = await createTenant();
    const other = await createTenant();
    const patient = await other.fetch(`/fhir/r4/${other.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Other" }] } });
    expect(patient.status).toBe(201);
    const patientId = ((await patient.json()) as { id: string }).id;
    const id = await createPipeline(noisy, transform(RUNAWAY));

    let runFinished = false;
    const runaway = run(noisy, id).finally(() => (runFinished = true));
    // Reads of the other organization, issued while the runaway execution is under way.
    let answeredDuringRun = 0;
    const reads = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const res = await other.fetch(i % 2 ? "/api/organization" : `/fhir/r4/${other.orgId}/Patient/${patientId}`);
        if (!runFinished) answeredDuringRun++;
        return res.status;
      }),
    );
    const { body } = await runaway;

    expect(reads).toEqual([200, 200, 200, 200, 200]);
    // The evaluation hands the thread back every few thousand steps, so the reads did not wait for it.
    expect(answeredDuringRun).toBeGreaterThan(0);
    expect(body).toMatchObject({ status: "failed", error: { code: "EXPRESSION_BUDGET_EXCEEDED", node_id: "t", node_type: "data.transform" } });
    expect((body.error as { message?: string }).message).toMatch(/budget of 2,000,000 evaluation steps/);
  });

  it("the organization's expressionSteps limit sets the budget, within the deployment's cap", async () => {
    const tight = await createTenant({ limits: { expressionSteps: 1_000 } });
    const roomy = await createTenant();
    const def = transform("$sum([1..5000])");
    const tightRun = await run(tight, await createPipeline(tight, def));
    expect(tightRun.body).toMatchObject({ status: "failed", error: { code: "EXPRESSION_BUDGET_EXCEEDED" } });
    expect((tightRun.body.error as { message?: string }).message).toMatch(/budget of 1,000 evaluation steps/);
    const roomyRun = await run(roomy, await createPipeline(roomy, def));
    expect(roomyRun.body).toMatchObject({ status: "completed", outputs: { t: { output: 12502500 } } });

    const limits = (await (await tight.fetch("/api/organization")).json()) as { limits: { expressionSteps: number } };
    expect(limits.limits.expressionSteps).toBe(1_000);
    // An environment setting above the cap is held to it.
    expect(resolveLimits({ LIMIT_EXPRESSION_STEPS: String(MAX_EXPRESSION_STEPS * 10) }, {}).expressionSteps).toBe(MAX_EXPRESSION_STEPS);
  });

  it("a filter's per-item predicates share the node's budget", async () => {
    const tenant = await createTenant({ limits: { expressionSteps: 50_000 } });
    const def = definition([trigger(), node("f", "data.filter", { predicate: "$count([1..1000]) > 0" })], [edge("start", "f", "event")]);
    const id = await createPipeline(tenant, def);
    const ok = await run(tenant, id, { a: 1 });
    expect(ok.body).toMatchObject({ status: "completed" });
    // Each item alone stays far below the budget; a thousand of them together do not.
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const def2 = definition([trigger(), node("items", "data.transform", { expression: "$.items" }), node("f", "data.filter", { predicate: "$count([1..1000]) > 0" })], [edge("start", "items", "event"), edge("items", "f")]);
    const id2 = await createPipeline(tenant, def2);
    const { body } = await run(tenant, id2, { items });
    expect(body).toMatchObject({ status: "failed", error: { code: "EXPRESSION_BUDGET_EXCEEDED", node_id: "f" } });
  });

  it("ranges and recursion past the fixed guards fail with the budget code, naming the limit", async () => {
    const tenant = await createTenant({ limits: { expressionSteps: MAX_EXPRESSION_STEPS } });
    const range = await run(tenant, await createPipeline(tenant, transform("$count([1..5000000])")));
    expect(range.body).toMatchObject({ status: "failed", error: { code: "EXPRESSION_BUDGET_EXCEEDED" } });
    expect((range.body.error as { message?: string }).message).toMatch(/at most 1,000,000 items/);
    const recursion = await run(tenant, await createPipeline(tenant, transform("($f := function($n){ $n = 0 ? 0 : 1 + $f($n - 1) }; $f(100000))")));
    expect(recursion.body).toMatchObject({ status: "failed", error: { code: "EXPRESSION_BUDGET_EXCEEDED" } });
    expect((recursion.body.error as { message?: string }).message).toMatch(/deeper than 10,000 evaluations/);
  });

  it("a FHIRPath expression that multiplies its input fails the data.fhirpath node with the budget code", async () => {
    const tenant = await createTenant({ limits: { expressionSteps: 200_000 } });
    const def = definition([trigger(), node("fp", "data.fhirpath", { expression: "Bundle.entry.select(%resource.entry.select(%resource.entry))" })], [edge("start", "fp", "event", "resource")]);
    const id = await createPipeline(tenant, def);
    const bundle = { resourceType: "Bundle", type: "collection", entry: Array.from({ length: 200 }, (_, i) => ({ resource: { resourceType: "Patient", id: `p${i}`, name: [{ family: "F", given: ["G"] }] } })) };
    const { body } = await run(tenant, id, bundle);
    expect(body).toMatchObject({ status: "failed", error: { code: "EXPRESSION_BUDGET_EXCEEDED", node_type: "data.fhirpath" } });
    // An ordinary expression on the same input stays well inside it.
    const plain = await createPipeline(tenant, definition([trigger(), node("fp", "data.fhirpath", { expression: "Bundle.entry.resource.name.family" })], [edge("start", "fp", "event", "resource")]));
    const ok = await run(tenant, plain, bundle);
    expect(ok.body).toMatchObject({ status: "completed" });
  });

  it("a regular expression that backtracks super-linearly is refused when the pipeline is saved", async () => {
    const tenant = await createTenant();
    for (const def of [
      transform('$match(name, /(a+)+$/)'),
      definition([trigger(), node("fp", "data.fhirpath", { expression: "Patient.name.family.matches('(a+)+$')" })], [edge("start", "fp", "event", "resource")]),
      definition([trigger(), node("fp", "data.fhirpath", { expression: "Patient.name.family.matches(Patient.id)" })], [edge("start", "fp", "event", "resource")]),
    ]) {
      const res = await tenant.fetch("/api/pipelines", { method: "POST", json: { name: "p", description: "", definition: def } });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; details: { message: string }[] } };
      expect(body.error.code).toBe("VALIDATION_FAILED");
      expect(body.error.details.map((d) => d.message).join(" ")).toMatch(/can take exponential time|must be a string literal/);
    }
    // An ordinary pattern is accepted and runs.
    const id = await createPipeline(tenant, transform('$match(name, /^[A-Z][a-z]+$/).match'));
    const { body } = await run(tenant, id, { name: "Ada" });
    expect(body).toMatchObject({ status: "completed", outputs: { t: { output: "Ada" } } });
  });
});
