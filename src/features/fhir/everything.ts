// Patient/$everything: the patient, the live members of its compartment (AuditEvents aside: the
// record's log, not its content) and what they reference, as a searchset. A read too large is
// cut to the most recently updated members and says so, never silently.
import { gone, notFound } from "../../platform/errors";
import type { AccessChecks } from "./access-checks";
import type { BundleEntry, Bundle, Resource } from "./port";
import type { FhirRepository } from "./repository";
import type { CompartmentShortfall, EverythingOptions, PatientEverything } from "./service";

/**
 * $everything reads at most this many compartment members (the most recently updated), or this
 * many of each type when it reads chosen types; a read cut short says so (PatientEverything.incomplete
 * and an OperationOutcome entry), never silently.
 */
export const EVERYTHING_LIMIT = 5000;

const parsed = (content: string) => JSON.parse(content) as Resource;

/** The OperationOutcome entry of a compartment read cut short: what was left out, per type. */
function shortfallOutcome(incomplete: CompartmentShortfall[]): Resource {
  return {
    resourceType: "OperationOutcome",
    issue: incomplete.map((s) => ({
      severity: "warning",
      code: "too-costly",
      diagnostics: `Only the ${s.included} most recently updated of the ${s.total} ${s.type ?? "compartment"} resources of the patient are included`,
    })),
  };
}

export async function patientEverything(repository: FhirRepository, access: AccessChecks, baseUrl: string, patientId: string, options: EverythingOptions): Promise<PatientEverything> {
  const patient = await repository.current("Patient", patientId);
  if (!patient) throw notFound(`Patient/${patientId} not found`);
  if (patient.deleted) throw gone(`Patient/${patientId} was deleted`);
  await access.mayReadRecord(patientId, patient.content);
  const reads = options.types?.map((type) => ({ type, limit: options.perType ?? EVERYTHING_LIMIT })) ?? [{ type: undefined, limit: EVERYTHING_LIMIT }];
  const parts = await Promise.all(
    reads.map(async ({ type, limit }) => {
      // One row more than the cap tells a whole read from a cut one; only a cut one is read again
      // newest first (the sort a whole read does not need) and counted.
      const contents = await repository.compartmentContents(patientId, limit + 1, { type });
      if (contents.length <= limit) return { contents };
      const [newest, total] = await Promise.all([repository.compartmentContents(patientId, limit, { type, newest: true }), repository.compartmentCount(patientId, type)]);
      const shortfall: CompartmentShortfall = { ...(type ? { type } : {}), included: limit, total };
      return { contents: newest, shortfall };
    }),
  );
  const incomplete = parts.flatMap((p) => (p.shortfall ? [p.shortfall] : []));
  const members = await access.visible("read", await repository.hydrateAll(parts.flatMap((p) => p.contents)), (r) => r);
  const seen = new Set(members.map((m) => `${m.resourceType}/${m.id}`));
  // After a cut read, only what the members read reference; otherwise the index's own join.
  const from = incomplete.length ? { sources: members.map((m) => ({ type: m.resourceType, id: m.id! })) } : { types: options.types };
  const refs = (await repository.referencedContents(patientId, from)).map(parsed).filter((r) => !seen.has(`${r.resourceType}/${r.id}`));
  const referenced = await access.visible("read", refs, (r) => r);
  const entry: BundleEntry[] = (await access.shownAll([...members, ...referenced])).map((resource) => ({
    fullUrl: `${baseUrl}/${resource.resourceType}/${resource.id}`,
    resource,
    search: { mode: "match" as const },
  }));
  const total = entry.length;
  if (incomplete.length) entry.push({ resource: shortfallOutcome(incomplete), search: { mode: "outcome" } });
  return { bundle: { resourceType: "Bundle", id: crypto.randomUUID(), type: "searchset", total, entry } satisfies Bundle, incomplete };
}
