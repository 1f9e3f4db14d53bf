// Reading an ITI-119 request: a Parameters resource (PDQm MatchParametersIn: `resource`,
// `onlyCertainMatches`, `count`) or a bare Patient. Problems are 400s with their reason.
import type { Resource } from "../../../platform/fhir-resource";
import { badRequest } from "../../../platform/errors";
import type { MatchOptions } from "./match";

/** At most this many matches are returned, whatever `count` asks. */
export const MAX_MATCHES = 100;
const DEFAULT_MATCHES = 10;

type Parameter = { name?: string; resource?: Resource; valueBoolean?: unknown; valueInteger?: unknown };

export interface MatchRequest extends MatchOptions {
  patient: Resource;
}

export function readMatchRequest(body: unknown): MatchRequest {
  const r = body as Resource | undefined;
  if (r?.resourceType === "Patient") return { patient: r, count: DEFAULT_MATCHES };
  if (r?.resourceType !== "Parameters") throw badRequest("$match takes a Parameters resource or a Patient");
  const params = Array.isArray(r.parameter) ? (r.parameter as Parameter[]) : [];
  const patients = params.filter((p) => p.name === "resource");
  if (patients.length !== 1 || patients[0]!.resource?.resourceType !== "Patient") throw badRequest("$match needs exactly one 'resource' parameter holding a Patient");
  const only = params.find((p) => p.name === "onlyCertainMatches");
  if (only && typeof only.valueBoolean !== "boolean") throw badRequest("onlyCertainMatches must be a valueBoolean");
  const count = params.find((p) => p.name === "count");
  if (count && (!Number.isInteger(count.valueInteger) || (count.valueInteger as number) < 1)) throw badRequest("count must be a positive valueInteger");
  const patient = patients[0]!.resource!;
  const hasDemographics = ["identifier", "name", "birthDate", "telecom"].some((k) => patient[k] !== undefined);
  if (!hasDemographics) throw badRequest("The Patient to match needs an identifier, a name, a birthDate or a telecom");
  return {
    patient,
    onlyCertainMatches: only?.valueBoolean === true,
    count: Math.min(MAX_MATCHES, (count?.valueInteger as number | undefined) ?? DEFAULT_MATCHES),
  };
}
