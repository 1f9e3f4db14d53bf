// An export whose source keeps failing is retried with backoff, then marked failed:
// its status answers a 5xx OperationOutcome and its slot is released. The failure is
// real: this file's isolated D1 loses the resources table under the running job.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { createTenant } from "../support/tenants";

describe("failed export", () => {
  it("retries, then fails with a 500 OperationOutcome and frees its slot", async () => {
    const t = await createTenant({ limits: { concurrentExports: 1 } });
    const kick = (path: string) => t.fetch(`/fhir/r4/${t.orgId}${path}`, { headers: { accept: "application/fhir+json", prefer: "respond-async" } });
    const res = await kick("/$export?_type=Patient");
    expect(res.status).toBe(202);
    const jobId = res.headers.get("content-location")!.split("/").pop()!;
    const stub = orgObject(env.EXPORT_JOB, t.orgId, jobId);
    await env.DB.prepare("DROP TABLE fhir_resources").run();

    const status = () => t.fetch(`/fhir/r4/${t.orgId}/bulkdata/status/${jobId}`);
    await runDurableObjectAlarm(stub);
    expect((await status()).status).toBe(202); // one failure is retried
    for (let attempt = 2; attempt <= 5; attempt++) await runDurableObjectAlarm(stub);

    const failed = await status();
    expect(failed.status).toBe(500);
    const outcome = (await failed.json()) as { resourceType: string; issue: { diagnostics: string }[] };
    expect(outcome.resourceType).toBe("OperationOutcome");
    expect(outcome.issue[0]?.diagnostics).toMatch(/The export failed: .*fhir_resources/);
    // The slot is free again: a new export is accepted (not 429).
    expect((await kick("/$export?_type=Patient")).status).toBe(202);
  });
});
