// An in-memory FhirPort for pipeline and agent tests: read, search by simple
// parameters (_id, identifier=system|value, patient, code=system|code, reference
// and string fields; _sort=-date, _count), create with ifNoneExist, update,
// conditional update, delete and batch, with versioning.
import type { OperationOutcome } from "../../src/platform/errors";
import { ApiError } from "../../src/platform/errors";
import type { Bundle, BundleEntry, FhirPort, Resource, WriteResult } from "../../src/features/fhir/port";
import { afterAll, beforeAll } from "vitest";
import { type FhirBindingFactory, useFhirBinding } from "../../src/features/pipelines/services";

type Stored = Resource & { id: string };

export class MemoryFhir implements FhirPort {
  readonly resources = new Map<string, Stored>();
  readonly deleted = new Set<string>();
  writes = 0;

  private key(type: string, id: string) {
    return `${type}/${id}`;
  }

  private save(resource: Resource, id: string, outcome: WriteResult["outcome"]): WriteResult {
    const prev = this.resources.get(this.key(resource.resourceType, id));
    const versionId = String(Number(prev?.meta?.versionId ?? 0) + 1);
    const stored: Stored = { ...structuredClone(resource), id, meta: { ...resource.meta, versionId, lastUpdated: new Date().toISOString() } };
    this.resources.set(this.key(resource.resourceType, id), stored);
    this.deleted.delete(this.key(resource.resourceType, id));
    this.writes += 1;
    return { resource: structuredClone(stored), outcome };
  }

  async read(type: string, id: string): Promise<Resource> {
    const found = this.resources.get(this.key(type, id));
    if (found) return structuredClone(found);
    if (this.deleted.has(this.key(type, id))) throw new ApiError(410, "GONE", `${type}/${id} was deleted`);
    throw new ApiError(404, "NOT_FOUND", `${type}/${id} not found`);
  }

  /** Stores resources as they are (ids kept), for tests that start from known data. */
  seed(...resources: Resource[]): this {
    for (const r of resources) this.resources.set(this.key(r.resourceType, r.id!), structuredClone(r) as Stored);
    return this;
  }

  matches(type: string, query: string): Stored[] {
    const params = [...new URLSearchParams(query)].filter(([k]) => !k.startsWith("_") || k === "_id");
    return [...this.resources.values()].filter(
      (r) =>
        r.resourceType === type &&
        params.every(([name, value]) => {
          if (name === "_id") return r.id === value;
          if (name === "identifier") {
            const [system, code] = value.includes("|") ? value.split("|") : [undefined, value];
            return ((r.identifier as { system?: string; value?: string }[] | undefined) ?? []).some((i) => i.value === code && (system === undefined || i.system === system));
          }
          if (name === "patient") {
            const ref = ((r.subject ?? r.patient) as { reference?: string } | undefined)?.reference;
            return ref === (value.includes("/") ? value : `Patient/${value}`);
          }
          if (name === "code") {
            const [system, code] = value.includes("|") ? value.split("|") : [undefined, value];
            const codings = (r.code as { coding?: { system?: string; code?: string }[] } | undefined)?.coding ?? [];
            return codings.some((c) => c.code === code && (!system || c.system === system));
          }
          const field = r[name];
          if (field && typeof field === "object" && "reference" in field) return (field as { reference: string }).reference === value;
          return typeof field === "string" && field.toLowerCase() === value.toLowerCase();
        }),
    );
  }

  async search(type: string, query: string): Promise<Bundle> {
    const params = new URLSearchParams(query);
    const found = this.matches(type, query);
    if (params.get("_sort") === "-date") found.sort((a, b) => String(b.effectiveDateTime ?? "").localeCompare(String(a.effectiveDateTime ?? "")));
    const page = found.slice(0, Number(params.get("_count") ?? found.length));
    return { resourceType: "Bundle", type: "searchset", total: found.length, entry: page.map((r) => ({ fullUrl: this.key(type, r.id), resource: structuredClone(r), search: { mode: "match" } })) };
  }

  async create(resource: Resource, options?: { ifNoneExist?: string }): Promise<WriteResult> {
    if (options?.ifNoneExist) {
      const existing = this.matches(resource.resourceType, options.ifNoneExist);
      if (existing.length > 1) throw new ApiError(412, "MULTIPLE_MATCHES", "More than one match");
      if (existing[0]) return { resource: structuredClone(existing[0]), outcome: "existing" };
    }
    return this.save(resource, crypto.randomUUID(), "created");
  }

  async update(resource: Resource & { id: string }): Promise<WriteResult> {
    const exists = this.resources.has(this.key(resource.resourceType, resource.id));
    return this.save(resource, resource.id, exists ? "updated" : "created");
  }

  async conditionalUpdate(query: string, resource: Resource): Promise<WriteResult> {
    const found = this.matches(resource.resourceType, query);
    if (found.length > 1) throw new ApiError(412, "MULTIPLE_MATCHES", "More than one match");
    if (found[0]) return this.save({ ...resource, id: found[0].id }, found[0].id, "updated");
    return this.save(resource, resource.id ?? crypto.randomUUID(), "created");
  }

  async delete(type: string, id: string): Promise<void> {
    this.resources.delete(this.key(type, id));
    this.deleted.add(this.key(type, id));
    this.writes += 1;
  }

  async batch(bundle: Bundle): Promise<Bundle> {
    const entry: BundleEntry[] = [];
    for (const e of bundle.entry ?? []) {
      const r = e.resource as Resource;
      const result = e.request?.method === "PUT" ? await this.update(r as Resource & { id: string }) : await this.create(r);
      entry.push({ resource: result.resource, response: { status: result.outcome === "created" ? "201 Created" : "200 OK" } });
    }
    return { resourceType: "Bundle", type: `${bundle.type}-response`, entry };
  }
}

const GENDERS = new Set(["male", "female", "other", "unknown"]);

/** A small validator with real rules: known type, Patient.gender code, Observation.status and code required. */
export async function validateResource(resource: Resource): Promise<OperationOutcome> {
  const issue: OperationOutcome["issue"] = [];
  if (!["Patient", "Observation", "Encounter", "Condition", "ConceptMap", "Bundle"].includes(resource.resourceType)) {
    issue.push({ severity: "error", code: "not-supported", diagnostics: `Unknown resource type ${resource.resourceType}` });
  }
  if (resource.resourceType === "Patient" && resource.gender !== undefined && !GENDERS.has(String(resource.gender))) {
    issue.push({ severity: "error", code: "code-invalid", diagnostics: "Patient.gender is not in the AdministrativeGender value set", expression: ["Patient.gender"] });
  }
  if (resource.resourceType === "Observation") {
    if (!resource.status) issue.push({ severity: "error", code: "required", diagnostics: "Observation.status is required", expression: ["Observation.status"] });
    if (!resource.code) issue.push({ severity: "error", code: "required", diagnostics: "Observation.code is required", expression: ["Observation.code"] });
  }
  if (!issue.length) issue.push({ severity: "information", code: "informational", diagnostics: "All OK" });
  return { resourceType: "OperationOutcome", issue };
}

/** One store per organization, installed behind the pipeline services seam. */
export const memoryStores = new Map<string, MemoryFhir>();

/**
 * Puts the pipelines' memory stores behind the services seam for this test file, and the real
 * store back after it, so the swap never outlives the file (a shared runtime, docs/testing.md).
 */
export function useMemoryFhir(): (orgId: string) => MemoryFhir {
  let previous: FhirBindingFactory | undefined;
  beforeAll(() => {
    previous = installMemoryFhir();
  });
  afterAll(() => {
    if (previous) useFhirBinding(previous);
  });
  return storeFor;
}

function storeFor(orgId: string): MemoryFhir {
  let store = memoryStores.get(orgId);
  if (!store) {
    store = new MemoryFhir();
    memoryStores.set(orgId, store);
  }
  return store;
}

function installMemoryFhir(): FhirBindingFactory {
  return useFhirBinding((_env, principal) => ({ port: storeFor(principal.orgId), validate: validateResource }));
}
