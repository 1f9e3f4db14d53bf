// An export whose Durable Object is reset in the middle of writing a file (workerd's
// ctx.abort(): the instance and everything in memory are gone, storage stays) resumes
// from its persisted position when its alarm runs again: the interrupted file is
// redone and every resource is exported exactly once.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getChunkedJson } from "../../src/platform/durable-objects/chunked-json";
import type { ExportJob } from "../../src/features/export/export-job";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import type { ExportJobState } from "../../src/features/export/job";
import { createTenant } from "../support/tenants";

const PATIENTS = 3;
const OBSERVATIONS = 1_200;

async function seed(t: Awaited<ReturnType<typeof createTenant>>) {
  const entries: unknown[] = [];
  for (let p = 0; p < PATIENTS; p++) entries.push({ resource: { resourceType: "Patient", gender: "female" }, request: { method: "POST", url: "Patient" } });
  for (let o = 0; o < OBSERVATIONS; o++) {
    entries.push({ resource: { resourceType: "Observation", status: "final", code: { text: `reading ${o}` } }, request: { method: "POST", url: "Observation" } });
  }
  for (let i = 0; i < entries.length; i += 500) {
    const entry = entries.slice(i, i + 500);
    const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry } });
    expect(res.status).toBe(200);
  }
}

describe("export durability", () => {
  it("reset mid-file, resumes at that file and exports everything exactly once", async () => {
    const t = await createTenant();
    await seed(t);
    const kick = await t.fetch(`/fhir/r4/${t.orgId}/$export?_type=Patient,Observation`, { headers: { accept: "application/fhir+json", prefer: "respond-async" } });
    expect(kick.status).toBe(202);
    const jobId = kick.headers.get("content-location")!.split("/").pop()!;
    // A reset object breaks the stubs that reached it: each step gets a fresh one.
    const job = () => orgObject(env.EXPORT_JOB, t.orgId, jobId);

    // Run the alarm's work inside the instance and reset the instance right after it persists
    // the open Observation upload (the Patient file is complete), while it reads that file's pages.
    const outcome = await runInDurableObject(job(), async (instance: ExportJob, ctx) => {
      const put = ctx.storage.put.bind(ctx.storage) as (entries: Record<string, unknown>) => Promise<void>;
      let reset: () => void = () => {};
      const resetting = new Promise<void>((resolve) => {
        reset = resolve;
      });
      ctx.storage.put = (async (entries: Record<string, unknown>) => {
        await put(entries);
        const state = "state#chunks" in entries ? await getChunkedJson<ExportJobState>(ctx.storage, "state") : undefined;
        if (state && state.typeIndex === 1 && state.openUpload) {
          // Writes are durable once the output gate opens; reset after that, not before.
          await ctx.storage.sync();
          reset();
        }
      }) as typeof ctx.storage.put;
      const work = instance.alarm().then(
        () => "finished",
        () => "failed",
      );
      const first = await Promise.race([work, resetting.then(() => "reset")]);
      if (first === "reset") ctx.abort("simulated eviction");
      return first;
    }).catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
    expect(outcome).toMatch(/simulated eviction/);

    // The new instance sees the state as persisted: Patient file done, Observation file open.
    const persisted = await runInDurableObject(job(), (_i: ExportJob, ctx) => getChunkedJson<ExportJobState>(ctx.storage, "state"));
    expect(persisted?.status).toBe("running");
    expect(persisted?.files.map((f) => f.name)).toEqual(["Patient-1.ndjson"]);
    expect(persisted?.openUpload?.key).toMatch(/Observation-1\.ndjson$/);

    // The runtime retries the alarm (a failed alarm is retried; the scheduled one is still set).
    await runDurableObjectAlarm(job());
    const done = await t.fetch(`/fhir/r4/${t.orgId}/bulkdata/status/${jobId}`);
    if (done.status === 202) await runDurableObjectAlarm(job());
    const status = await t.fetch(`/fhir/r4/${t.orgId}/bulkdata/status/${jobId}`);
    expect(status.status).toBe(200);
    const manifest = (await status.json()) as { output: { type: string; url: string; count: number }[] };
    expect(manifest.output.map((o) => [o.type, o.count])).toEqual([
      ["Patient", PATIENTS],
      ["Observation", OBSERVATIONS],
    ]);
    // The interrupted upload was aborted, not left behind.
    const { key, uploadId } = persisted!.openUpload!;
    await expect(env.BLOBS.resumeMultipartUpload(key, uploadId).uploadPart(1, "x")).rejects.toThrow();
    for (const output of manifest.output) {
      const text = new TextDecoder().decode(await (await t.fetch(new URL(output.url).pathname)).arrayBuffer());
      const ids = text.trimEnd().split("\n").map((l) => (JSON.parse(l) as { id: string }).id);
      expect(ids).toHaveLength(output.count);
      expect(new Set(ids).size).toBe(output.count);
    }
  });
});
