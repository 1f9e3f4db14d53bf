// The shape of a batch or transaction Bundle, checked before anything reads its entries: the
// store (transaction.ts), implementation guides' bundle checks (bundle-check.ts) and their audits
// (guide-audit.ts). Bundle's invariants (R4 bdl-3: an entry of a batch or transaction has a
// request) and element types: entry a list of objects, each request an object with a method and a
// url, each resource an object with a resourceType, fullUrl and the request's conditions strings,
// meta.profile a list of strings. What the resources hold is the store's validation's concern.
import { type FieldError, badRequest } from "../../platform/errors";
import type { Bundle } from "./port";

const MAX_BUNDLE_ENTRIES = 1000;
const REQUEST_STRINGS = ["ifNoneExist", "ifMatch", "ifNoneMatch", "ifModifiedSince"] as const;
const MAX_ISSUES = 20;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`);

function entryIssues(entry: unknown, at: string, issues: FieldError[]): void {
  if (!isObject(entry)) return void issues.push({ path: at, message: `${at} must be an object, got ${kindOf(entry)}` });
  if (entry.fullUrl !== undefined && typeof entry.fullUrl !== "string") issues.push({ path: `${at}.fullUrl`, message: `${at}.fullUrl must be a string` });
  const { request, resource } = entry;
  if (request === undefined) issues.push({ path: `${at}.request`, message: `${at}.request is required in a batch or transaction (bdl-3)` });
  else if (!isObject(request)) issues.push({ path: `${at}.request`, message: `${at}.request must be an object, got ${kindOf(request)}` });
  else {
    for (const key of ["method", "url"] as const) {
      if (typeof request[key] !== "string") issues.push({ path: `${at}.request.${key}`, message: `${at}.request.${key} must be a string, got ${kindOf(request[key])}` });
    }
    for (const key of REQUEST_STRINGS) {
      if (request[key] !== undefined && typeof request[key] !== "string") issues.push({ path: `${at}.request.${key}`, message: `${at}.request.${key} must be a string` });
    }
  }
  if (resource !== undefined && !(isObject(resource) && typeof resource.resourceType === "string")) {
    issues.push({ path: `${at}.resource`, message: `${at}.resource must be a resource (an object with a resourceType), got ${kindOf(resource)}` });
  }
}

/** Everything wrong with the shape of a batch or transaction Bundle (at most 20); empty when it may be read. */
export function bundleShapeIssues(value: unknown): FieldError[] {
  if (!isObject(value) || value.resourceType !== "Bundle") return [{ path: "Bundle", message: "POST to the base takes a Bundle" }];
  if (value.type !== "transaction" && value.type !== "batch") return [{ path: "Bundle.type", message: `Bundle.type must be transaction or batch, got ${JSON.stringify(value.type)?.slice(0, 60)}` }];
  const issues: FieldError[] = [];
  const { meta, entry } = value;
  if (meta !== undefined && !isObject(meta)) issues.push({ path: "Bundle.meta", message: "Bundle.meta must be an object" });
  const profile = isObject(meta) ? meta.profile : undefined;
  if (profile !== undefined && !(Array.isArray(profile) && profile.every((p) => typeof p === "string"))) {
    issues.push({ path: "Bundle.meta.profile", message: "Bundle.meta.profile must be a list of canonical URLs (strings)" });
  }
  if (entry === undefined) return issues;
  if (!Array.isArray(entry)) return [...issues, { path: "Bundle.entry", message: `Bundle.entry must be an array, got ${kindOf(entry)}` }];
  if (entry.length > MAX_BUNDLE_ENTRIES) return [...issues, { path: "Bundle.entry", message: `A bundle may hold at most ${MAX_BUNDLE_ENTRIES} entries` }];
  for (const [i, e] of entry.entries()) {
    entryIssues(e, `Bundle.entry[${i}]`, issues);
    if (issues.length >= MAX_ISSUES) break;
  }
  return issues.slice(0, MAX_ISSUES);
}

/** The Bundle, once its shape holds; otherwise a 400 with one issue per problem. */
export function checkedBundle(value: unknown): Bundle {
  const issues = bundleShapeIssues(value);
  if (issues.length) throw badRequest(issues.length === 1 ? issues[0]!.message : `The Bundle is malformed: ${issues[0]!.message} (and ${issues.length - 1} more)`, issues);
  return value as Bundle;
}
