// The export runner against real (local) R2: exact counts, file splitting,
// gzip NDJSON content, _elements, per-type errors, and resuming after a crash.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_JOB_LIMITS, type ExportJobState, advanceExport, deleteExportFiles, nextPageSize } from "../../src/features/export/job";
import type { ExportRequest } from "../../src/features/export/kickoff";
import { ArrayExportSource, makeResources } from "../support/array-export-source";

const limits = { pageSize: 7, maxPageSize: 7, pageBytes: 1e9, maxLinesPerFile: 25, maxBytesPerFile: 10_000_000 };

function newJob(request: Partial<ExportRequest> = {}, patients?: string[] | "all"): ExportJobState {
  return {
    id: crypto.randomUUID(),
    orgId: "org-test",
    requestedBy: { keyId: "k", keyName: "k", role: "admin" },
    request: { level: "system", types: ["Patient", "Observation"], typeFilters: {}, elements: {}, patients: [], requestUrl: "x", ...request },
    status: "running",
    transactionTime: "2026-06-01T00:00:00.000Z",
    createdAt: "2026-06-01T00:00:00.000Z",
    ...(patients ? { patients } : {}),
    typeIndex: 0,
    files: [],
    errorFiles: [],
    issues: [],
    exported: 0,
    attempts: 0,
  };
}

async function readLines(key: string): Promise<Record<string, unknown>[]> {
  const object = await env.BLOBS.get(key);
  expect(object?.httpMetadata?.contentEncoding).toBe("gzip");
  const text = await new Response(object!.body.pipeThrough(new DecompressionStream("gzip"))).text();
  expect(text.endsWith("\n")).toBe(true);
  return text.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
}

const persistNothing = async () => {};

describe("export page sizes", () => {
  it("sizes pages by bytes: many small resources per page, few large ones, never zero or unbounded", () => {
    const l = DEFAULT_JOB_LIMITS;
    expect(nextPageSize(l, [])).toBe(l.pageSize);
    expect(nextPageSize(l, ["x".repeat(100)])).toBe(l.maxPageSize);
    expect(nextPageSize(l, ["x".repeat(2000), "y".repeat(2000)])).toBe(Math.floor(l.pageBytes / 2000));
    expect(nextPageSize(l, ["x".repeat(1_500_000)])).toBe(2);
    expect(nextPageSize(l, ["x".repeat(10_000_000)])).toBe(1);
  });

  it("exports every resource exactly once while page sizes change between pages", async () => {
    const resources = makeResources(20, 2).map((r, i) => ({ ...r, note: "n".repeat(i % 3 === 0 ? 5000 : 10) }));
    const source = new ArrayExportSource(resources);
    const state = newJob({ types: ["Patient", "Observation"] });
    const adaptive = { pageSize: 4, maxPageSize: 50, pageBytes: 20_000, maxLinesPerFile: 1000, maxBytesPerFile: 1e9 };
    expect(await advanceExport(state, { source, bucket: env.BLOBS, persist: persistNothing, limits: adaptive }, 60_000)).toBe(true);
    const ids = (await Promise.all(state.files.map((f) => readLines(f.key)))).flat().map((r) => `${r.resourceType}/${r.id}`);
    expect(ids.sort()).toEqual(resources.map((r) => `${r.resourceType}/${r.id}`).sort());
    expect(source.pagesServed).toBeGreaterThan(2);
  });
});

describe("export runner", () => {
  it("writes every resource exactly once, split into bounded files", async () => {
    const source = new ArrayExportSource(makeResources(10, 6));
    const state = newJob();
    expect(await advanceExport(state, { source, bucket: env.BLOBS, persist: persistNothing, limits }, 60_000)).toBe(true);
    expect(state.files.map((f) => [f.name, f.count])).toEqual([
      ["Patient-1.ndjson", 10],
      ["Observation-1.ndjson", 25],
      ["Observation-2.ndjson", 25],
      ["Observation-3.ndjson", 10],
    ]);
    expect(state.exported).toBe(70);
    const ids = (await Promise.all(state.files.filter((f) => f.type === "Observation").map((f) => readLines(f.key)))).flat().map((r) => r.id);
    expect(new Set(ids).size).toBe(60);
  });

  it("streams multi-part files larger than one R2 part", async () => {
    // Incompressible payloads so the gzip output exceeds the 5 MiB part size.
    const big = makeResources(1, 0);
    const noise = () => Array.from(crypto.getRandomValues(new Uint8Array(3000)), (b) => b.toString(16).padStart(2, "0")).join("");
    for (let i = 0; i < 2400; i++) big.push({ resourceType: "Observation", id: `b${i}`, meta: { lastUpdated: "2026-01-01T00:00:00.000Z" }, note: [{ text: noise() }] });
    const state = newJob({ types: ["Observation"] });
    await advanceExport(state, { source: new ArrayExportSource(big), bucket: env.BLOBS, persist: persistNothing, limits: { pageSize: 500, maxPageSize: 500, pageBytes: 1e9, maxLinesPerFile: 5000, maxBytesPerFile: 1e9 } }, 60_000);
    expect(state.files).toHaveLength(1);
    const head = await env.BLOBS.head(state.files[0]!.key);
    expect(head!.size).toBeGreaterThan(5 * 1024 * 1024);
    expect((await readLines(state.files[0]!.key)).length).toBe(2400);
  });

  it("honours _since, the transaction time and patient compartments", async () => {
    const resources = [...makeResources(3, 2, "2026-01-01T00:00:00.000Z"), ...makeResources(1, 1, "2026-07-01T00:00:00.000Z").map((r) => ({ ...r, id: `late-${r.id}` }))];
    const state = newJob({ since: "2025-06-01T00:00:00.000Z" }, ["p1"]);
    await advanceExport(state, { source: new ArrayExportSource(resources), bucket: env.BLOBS, persist: persistNothing, limits }, 60_000);
    const all = (await Promise.all(state.files.map((f) => readLines(f.key)))).flat();
    expect(all.map((r) => r.id).sort()).toEqual(["o1-0", "o1-1", "p1"]);
  });

  it("keeps only _elements (plus mandatory ones) and tags the resources SUBSETTED", async () => {
    const state = newJob({ types: ["Patient"], elements: { Patient: ["name"] } });
    await advanceExport(state, { source: new ArrayExportSource(makeResources(1, 0)), bucket: env.BLOBS, persist: persistNothing, limits }, 60_000);
    const [patient] = await readLines(state.files[0]!.key);
    expect(Object.keys(patient!).sort()).toEqual(["id", "meta", "name", "resourceType"]);
    expect((patient!.meta as { tag: { code: string }[] }).tag[0]?.code).toBe("SUBSETTED");
  });

  it("reports a type the store refuses as an OperationOutcome error file and goes on", async () => {
    const state = newJob({ typeFilters: { Patient: ["bad=1"] } });
    await advanceExport(state, { source: new ArrayExportSource(makeResources(2, 1)), bucket: env.BLOBS, persist: persistNothing, limits }, 60_000);
    expect(state.files.map((f) => f.type)).toEqual(["Observation"]);
    expect(state.errorFiles).toHaveLength(1);
    const [outcome] = await readLines(state.errorFiles[0]!.key);
    expect(outcome).toMatchObject({ resourceType: "OperationOutcome", issue: [{ severity: "error" }] });
  });

  it("resumes after a crash mid-file without losing or duplicating resources", async () => {
    const source = new ArrayExportSource(makeResources(10, 6));
    source.failAfterPages = 5;
    let saved = "";
    const persist = async (s: ExportJobState) => {
      saved = JSON.stringify(s);
    };
    const deps = { source, bucket: env.BLOBS, persist, limits };
    await expect(advanceExport(newJob(), deps, 60_000)).rejects.toThrow("simulated crash");
    // A new run starts from what was persisted, as the Durable Object would after eviction.
    const resumed = JSON.parse(saved) as ExportJobState;
    expect(resumed.openUpload).toBeDefined();
    source.failAfterPages = Number.POSITIVE_INFINITY;
    expect(await advanceExport(resumed, deps, 60_000)).toBe(true);
    expect(resumed.openUpload).toBeUndefined();
    const ids = (await Promise.all(resumed.files.map((f) => readLines(f.key)))).flat().map((r) => r.id);
    expect(ids).toHaveLength(70);
    expect(new Set(ids).size).toBe(70);
    expect(resumed.files.reduce((n, f) => n + f.count, 0)).toBe(70);
  });

  it("stops at the time budget and continues on the next call", async () => {
    let t = 0;
    const state = newJob();
    const now = () => {
      t += 1000;
      return t;
    };
    const deps = { source: new ArrayExportSource(makeResources(10, 6)), bucket: env.BLOBS, persist: persistNothing, limits, now };
    expect(await advanceExport(state, deps, 2500)).toBe(false);
    expect(state.files.length).toBeGreaterThan(0);
    while (!(await advanceExport(state, deps, 2500)));
    expect(state.exported).toBe(70);
  });

  it("deletes all of an export's files", async () => {
    const state = newJob();
    await advanceExport(state, { source: new ArrayExportSource(makeResources(3, 3)), bucket: env.BLOBS, persist: persistNothing, limits }, 60_000);
    await deleteExportFiles(state, env.BLOBS);
    for (const f of state.files) expect(await env.BLOBS.head(f.key)).toBeNull();
  });
});
