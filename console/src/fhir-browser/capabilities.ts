// What the FHIR browser offers comes from the service's CapabilityStatement: the resource types it
// lists and, per type, its search parameters (with the server-wide ones such as _count and _sort).
import { useSession } from "../lib/session";
import { type Loaded, useApi } from "../lib/use-api";
import { fhirBase } from "../patients/fhir";

export interface SearchParam {
  name: string;
  type: string;
  documentation?: string;
}

export interface CapabilityResource {
  type: string;
  searchParam?: SearchParam[];
}

export interface CapabilityStatement {
  rest?: { resource?: CapabilityResource[]; searchParam?: SearchParam[] }[];
}

export function useCapabilities(): Loaded<CapabilityStatement> {
  const { session } = useSession();
  return useApi<CapabilityStatement>(`${fhirBase(session?.organization.id ?? "")}/metadata`);
}

export const resourcesOf = (cs: CapabilityStatement | undefined): CapabilityResource[] =>
  [...(cs?.rest?.[0]?.resource ?? [])].sort((a, b) => a.type.localeCompare(b.type));

/** The console's own address for an API path under the org's FHIR base (`/fhir/r4/<org>/X` → `/fhir-browser/X`). */
export function consolePathOf(apiPath: string, orgId: string): string {
  const base = fhirBase(orgId);
  return apiPath.startsWith(`${base}/`) ? `/fhir-browser/${apiPath.slice(base.length + 1)}` : apiPath;
}
