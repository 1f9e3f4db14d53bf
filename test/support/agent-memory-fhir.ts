// An in-memory FhirPort per organization for agent tests: read, create and a
// search that understands the parameters the agent tools use (patient/subject,
// code as system|code, _count, _sort=-date), enough to be a faithful stand-in.
import type { Bundle, FhirPort, Resource, WriteResult } from "../../src/fhir/port";
import { notFound } from "../../src/errors";

function matchesCode(r: Resource, token: string): boolean {
  const [system, code] = token.includes("|") ? token.split("|") : [undefined, token];
  const codings = ((r.code as { coding?: { system?: string; code?: string }[] } | undefined)?.coding ?? []);
  return codings.some((c) => c.code === code && (system === undefined || system === "" || c.system === system));
}

function patientRef(r: Resource): string | undefined {
  const ref = (r.subject ?? r.patient) as { reference?: string } | undefined;
  return ref?.reference;
}

export class MemoryFhir implements FhirPort {
  readonly resources = new Map<string, Resource>();
  readonly searches: string[] = [];

  seed(...rs: Resource[]): this {
    for (const r of rs) this.resources.set(`${r.resourceType}/${r.id}`, r);
    return this;
  }

  async read(type: string, id: string): Promise<Resource> {
    const r = this.resources.get(`${type}/${id}`);
    if (!r) throw notFound(`${type}/${id} not found`);
    return r;
  }

  async search(type: string, query: string): Promise<Bundle> {
    this.searches.push(`${type}?${query}`);
    const params = new URLSearchParams(query);
    let hits = [...this.resources.values()].filter((r) => r.resourceType === type);
    const patient = params.get("patient") ?? params.get("subject");
    if (patient) {
      const ref = patient.includes("/") ? patient : `Patient/${patient}`;
      hits = hits.filter((r) => patientRef(r) === ref);
    }
    const code = params.get("code");
    if (code) hits = hits.filter((r) => matchesCode(r, code));
    if (params.get("_sort") === "-date") {
      hits.sort((a, b) => String(b.effectiveDateTime ?? "").localeCompare(String(a.effectiveDateTime ?? "")));
    }
    const count = Number(params.get("_count") ?? 20);
    return {
      resourceType: "Bundle",
      type: "searchset",
      total: hits.length,
      entry: hits.slice(0, count).map((resource) => ({ resource, search: { mode: "match" } })),
    };
  }

  async create(resource: Resource): Promise<WriteResult> {
    const stored = { ...resource, id: resource.id ?? crypto.randomUUID() };
    this.resources.set(`${stored.resourceType}/${stored.id}`, stored);
    return { resource: stored, outcome: "created" };
  }

  async update(resource: Resource & { id: string }): Promise<WriteResult> {
    this.resources.set(`${resource.resourceType}/${resource.id}`, resource);
    return { resource, outcome: "updated" };
  }

  async conditionalUpdate(_query: string, resource: Resource): Promise<WriteResult> {
    return this.create(resource);
  }

  async delete(type: string, id: string): Promise<void> {
    this.resources.delete(`${type}/${id}`);
  }

  async batch(bundle: Bundle): Promise<Bundle> {
    return { resourceType: "Bundle", type: `${bundle.type}-response`, entry: [] };
  }

  ofType(type: string): Resource[] {
    return [...this.resources.values()].filter((r) => r.resourceType === type);
  }
}
