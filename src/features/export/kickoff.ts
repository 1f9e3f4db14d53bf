// Parses and validates a Bulk Data kick-off request (HL7 Bulk Data Access IG v2):
// headers, GET query or POST Parameters, into an ExportRequest. Anything invalid
// or unsupported is a 400 OperationOutcome, unless `Prefer: handling=lenient`
// lets us ignore an unsupported parameter.
import { ApiError, type FieldError } from "../../platform/errors";
import { EXPORTABLE_TYPES, ON_REQUEST_SYSTEM_TYPES, PATIENT_COMPARTMENT_TYPES, isExportable } from "./exportable";
import { percentDecoded } from "../../platform/http/path-escapes";

export type ExportLevel = "system" | "patient" | "group";

export interface ExportRequest {
  level: ExportLevel;
  groupId?: string;
  types: string[];
  /** Only resources last updated after this instant. */
  since?: string;
  /** Per type, search queries (without the `Type?`); a resource is exported if it matches any. */
  typeFilters: Record<string, string[]>;
  /** Top-level elements to keep (by type, "*" for all types); empty = whole resources. */
  elements: Record<string, string[]>;
  /** Patient ids the export is limited to (POST `patient` parameter). */
  patients: string[];
  /** The kick-off URL, echoed as `request` in the manifest. */
  requestUrl: string;
  /** Parameters ignored under `Prefer: handling=lenient`, reported in the manifest's error file. */
  ignored?: string[];
  /**
   * `includeAssociatedData`: Provenance resources targeting exported resources, either only the
   * most recent one per resource or all of them (both values asked for = all).
   */
  associated?: AssociatedData;
}

export type AssociatedData = "LatestProvenanceResources" | "RelevantProvenanceResources";
const ASSOCIATED_VALUES: readonly string[] = ["LatestProvenanceResources", "RelevantProvenanceResources"];

export const OUTPUT_FORMATS = ["application/fhir+ndjson", "application/ndjson", "ndjson"];
const SUPPORTED_PARAMS = new Set(["_type", "_since", "_typeFilter", "_outputFormat", "_elements", "patient", "includeAssociatedData"]);

export interface KickoffInput {
  level: ExportLevel;
  groupId?: string;
  method: string;
  url: string;
  accept: string | undefined;
  prefer: string | undefined;
  /** Parsed POST body, when the method is POST. */
  body?: unknown;
  now?: Date;
}

const bad = (message: string, path = "(request)") => new ApiError(400, "INVALID_EXPORT_REQUEST", message, [{ path, message }]);

/** A FHIR instant or date-time/date (RFC 3339 profile the IG asks for), as a Date. */
function parseSince(value: string): Date | undefined {
  const m =
    /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/.exec(value);
  if (!m) return undefined;
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00"] = m;
  const nums = [Number(mo), Number(d), Number(h), Number(mi), Number(s)];
  if (nums[0]! < 1 || nums[0]! > 12 || nums[1]! < 1 || nums[1]! > 31 || nums[2]! > 23 || nums[3]! > 59 || nums[4]! > 60) {
    return undefined;
  }
  if (Number(y) < 1) return undefined;
  const date = new Date(value.length <= 10 ? `${value}${"-01".repeat((10 - value.length) / 3)}T00:00:00Z` : m[7] ? value : `${value}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Collects parameters as name → values from the query or a Parameters resource. */
function collectParams(input: KickoffInput): Map<string, string[]> {
  const params = new Map<string, string[]>();
  const add = (name: string, value: string) => params.set(name, [...(params.get(name) ?? []), value]);
  for (const [name, value] of new URL(input.url).searchParams) add(name, value);
  if (input.method === "POST") {
    const body = input.body as { resourceType?: unknown; parameter?: unknown } | undefined;
    if (body?.resourceType !== "Parameters") throw bad("A POST kick-off body must be a FHIR Parameters resource", "body");
    if (body.parameter !== undefined && !Array.isArray(body.parameter)) throw bad("Parameters.parameter must be an array", "Parameters.parameter");
    for (const [i, p] of ((body.parameter as unknown[]) ?? []).entries()) {
      const param = p as Record<string, unknown>;
      const name = typeof param.name === "string" ? param.name : undefined;
      if (!name) throw bad("Every parameter needs a name", `Parameters.parameter[${i}].name`);
      const ref = param.valueReference as { reference?: unknown } | undefined;
      const value = ["valueString", "valueInstant", "valueDateTime", "valueCode", "valueUri"]
        .map((k) => param[k])
        .find((v) => typeof v === "string") as string | undefined;
      if (name === "patient" && typeof ref?.reference === "string") add(name, ref.reference);
      else if (value !== undefined) add(name, value);
      else throw bad(`Parameter ${name} has no supported value[x]`, `Parameters.parameter[${i}]`);
    }
  }
  return params;
}

function pushTo(map: Record<string, string[]>, key: string, value: string): void {
  map[key] = [...(map[key] ?? []), value];
}

const splitList = (values: string[] | undefined) =>
  (values ?? []).flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);

/**
 * The IG: "Currently, only application/fhir+json is supported" for the kick-off's Accept
 * (the format of its OperationOutcome); a server MAY reject a request without it. A client
 * that accepts any type (a wildcard range) is served application/fhir+json; plain
 * application/json is refused, as the SMART bdt suite expects.
 */
function acceptsFhirJson(accept: string): boolean {
  return accept
    .split(",")
    .map((range) => range.split(";"))
    .some(([type, ...params]) => {
      const t = type!.trim().toLowerCase();
      const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return (t === "application/fhir+json" || t === "*/*") && (q === undefined || Number(q) > 0);
    });
}

export function parseKickoff(input: KickoffInput): ExportRequest {
  if (!acceptsFhirJson(input.accept ?? "")) {
    throw new ApiError(400, "INVALID_EXPORT_REQUEST", "Kick-off requires the header Accept: application/fhir+json");
  }
  const prefer = (input.prefer ?? "").toLowerCase();
  if (!/(^|[\s,;])respond-async($|[\s,;])/.test(prefer)) {
    throw new ApiError(400, "INVALID_EXPORT_REQUEST", "Kick-off requires the header Prefer: respond-async");
  }
  const lenient = /handling\s*=\s*lenient/.test(prefer);
  const params = collectParams(input);
  const errors: FieldError[] = [];
  const ignored: string[] = [];

  for (const name of params.keys()) {
    if (SUPPORTED_PARAMS.has(name)) continue;
    if (lenient) ignored.push(`Unsupported parameter ${name} was ignored (Prefer: handling=lenient)`);
    else errors.push({ path: name, message: `Unsupported parameter ${name} (send Prefer: handling=lenient to ignore it)` });
  }

  const format = params.get("_outputFormat")?.[0];
  if (format !== undefined && !OUTPUT_FORMATS.includes(format)) {
    errors.push({ path: "_outputFormat", message: `Unsupported _outputFormat ${format}; use ${OUTPUT_FORMATS.join(", ")}` });
  }

  const allowed: readonly string[] = input.level === "system" ? EXPORTABLE_TYPES : PATIENT_COMPARTMENT_TYPES;
  const requested = splitList(params.get("_type"));
  const onRequest = input.level === "system" ? ON_REQUEST_SYSTEM_TYPES : [];
  for (const t of requested) {
    if (!allowed.includes(t) && !onRequest.includes(t)) {
      errors.push({
        path: "_type",
        message: isExportable(t) ? `${t} is not in the Patient compartment` : `${t} is not an exportable resource type`,
      });
    }
  }
  const types = requested.length ? [...new Set(requested)] : [...allowed];

  let since: string | undefined;
  const sinceRaw = params.get("_since")?.[0];
  if (sinceRaw !== undefined) {
    const date = parseSince(sinceRaw);
    if (!date) errors.push({ path: "_since", message: `_since must be a FHIR instant (RFC 3339), got ${sinceRaw}` });
    else if (date.getTime() > (input.now ?? new Date()).getTime()) errors.push({ path: "_since", message: "_since is in the future" });
    else since = date.toISOString();
  }

  const typeFilters: Record<string, string[]> = {};
  for (const filter of params.get("_typeFilter") ?? []) {
    // Each value may hold several comma-separated queries; commas inside a query are percent-encoded.
    for (const query of filter.split(",").map((q) => q.trim()).filter(Boolean)) {
      const decoded = percentDecoded(query);
      const m = decoded === undefined ? null : /^([A-Z][A-Za-z]+)\?(.+)$/.exec(decoded);
      if (decoded === undefined) {
        errors.push({ path: "_typeFilter", message: `_typeFilter entry ${query} has a malformed percent-escape` });
      } else if (!m) {
        errors.push({ path: "_typeFilter", message: `_typeFilter entries look like Type?search, got ${query}` });
      } else if (!allowed.includes(m[1]!)) {
        errors.push({ path: "_typeFilter", message: `${m[1]} in _typeFilter is not exportable here` });
      } else {
        pushTo(typeFilters, m[1]!, m[2]!);
      }
    }
  }

  const elements: Record<string, string[]> = {};
  for (const e of splitList(params.get("_elements"))) {
    const m = /^(?:([A-Z][A-Za-z]+)\.)?([a-z][A-Za-z0-9]*)$/.exec(e);
    if (!m) errors.push({ path: "_elements", message: `_elements entries look like element or Type.element, got ${e}` });
    else pushTo(elements, m[1] ?? "*", m[2]!);
  }

  const patients: string[] = [];
  for (const ref of params.get("patient") ?? []) {
    if (input.level === "system") {
      errors.push({ path: "patient", message: "The patient parameter applies to Patient- and Group-level export only" });
      break;
    }
    const m = /^Patient\/([A-Za-z0-9\-.]{1,64})$/.exec(ref);
    if (!m) errors.push({ path: "patient", message: `patient must reference Patient/<id>, got ${ref}` });
    else patients.push(m[1]!);
  }

  const associatedValues = splitList(params.get("includeAssociatedData"));
  for (const value of associatedValues) {
    if (ASSOCIATED_VALUES.includes(value)) continue;
    // The IG: a server unable to honour a value SHOULD refuse, so the client can resubmit without it.
    if (lenient) ignored.push(`Unsupported includeAssociatedData value ${value} was ignored (Prefer: handling=lenient)`);
    else errors.push({ path: "includeAssociatedData", message: `Unsupported includeAssociatedData value ${value}; supported: ${ASSOCIATED_VALUES.join(", ")}` });
  }
  const associated: AssociatedData | undefined = associatedValues.includes("RelevantProvenanceResources")
    ? "RelevantProvenanceResources"
    : associatedValues.includes("LatestProvenanceResources")
      ? "LatestProvenanceResources"
      : undefined;

  if (errors.length) throw new ApiError(400, "INVALID_EXPORT_REQUEST", "Invalid export request", errors);
  return {
    level: input.level,
    ...(input.groupId ? { groupId: input.groupId } : {}),
    types,
    ...(since ? { since } : {}),
    typeFilters,
    elements,
    patients,
    requestUrl: input.url,
    ...(ignored.length ? { ignored } : {}),
    ...(associated ? { associated } : {}),
  };
}

