// An ExportSource over an in-memory array, for testing the export runner without
// the FHIR store. Pages by position; can be told to fail after some pages.
import { ApiError } from "../../src/platform/errors";
import type { ExportPage, ExportQuery, ExportSource } from "../../src/features/export/source";

export interface StoredResource {
  resourceType: string;
  id: string;
  meta: { lastUpdated: string };
  subject?: { reference: string };
  [k: string]: unknown;
}

export class ArrayExportSource implements ExportSource {
  pagesServed = 0;
  failAfterPages = Number.POSITIVE_INFINITY;

  constructor(
    private readonly resources: StoredResource[],
    private readonly groups: Record<string, string[]> = {},
  ) {}

  async exportPage(q: ExportQuery): Promise<ExportPage> {
    if (this.pagesServed >= this.failAfterPages) throw new Error("simulated crash");
    if (q.filters?.some((f) => f.startsWith("bad="))) throw new ApiError(400, "BAD_FILTER", `unknown parameter in ${q.filters.join(" | ")}`);
    this.pagesServed++;
    const matching = this.resources.filter(
      (r) =>
        r.resourceType === q.type &&
        (!q.since || r.meta.lastUpdated > q.since) &&
        r.meta.lastUpdated <= q.until &&
        (!q.compartment ||
          q.compartment.patients === "all" ||
          q.compartment.patients.some((p) => r.subject?.reference === `Patient/${p}` || (r.resourceType === "Patient" && r.id === p))),
    );
    const start = q.cursor ? Number(q.cursor) : 0;
    const slice = matching.slice(start, start + q.limit);
    const next = start + slice.length;
    return { lines: slice.map((r) => JSON.stringify(r)), ...(next < matching.length ? { cursor: String(next) } : {}) };
  }

  async groupPatients(groupId: string): Promise<string[]> {
    const members = this.groups[groupId];
    if (!members) throw new ApiError(404, "NOT_FOUND", `Group/${groupId} not found`);
    return members;
  }
}

export function makeResources(patients: number, observationsPerPatient: number, lastUpdated = "2026-01-01T00:00:00.000Z"): StoredResource[] {
  const out: StoredResource[] = [];
  for (let p = 0; p < patients; p++) {
    out.push({ resourceType: "Patient", id: `p${p}`, meta: { lastUpdated }, name: [{ family: `Family${p}` }], gender: "unknown" });
    for (let o = 0; o < observationsPerPatient; o++) {
      out.push({ resourceType: "Observation", id: `o${p}-${o}`, meta: { lastUpdated }, status: "final", subject: { reference: `Patient/p${p}` } });
    }
  }
  return out;
}
