// What a client may name and write, before anything is read: a known resource type, and a body
// that is a resource of it; server-written types (AuditEvent) are never written or deleted by a
// client. Single interactions and Bundle entries check the same rules.
import { badRequest, forbidden, notFound } from "../../platform/errors";
import { READ_ONLY_TYPES, isResourceType } from "./definitions";
import type { Resource } from "./port";

/** 404 for a type R4 does not define. */
export function checkType(type: string): void {
  if (!isResourceType(type)) throw notFound(`Unknown resource type ${type}`, "UNKNOWN_TYPE");
}

/** The body as a resource a client may write (known type, not server-only), or a 4xx; `type`: the one the URL names. */
export function writable(resource: unknown, type?: string): Resource {
  if (!resource || typeof resource !== "object" || Array.isArray(resource)) throw badRequest("The body must be a FHIR resource");
  const r = resource as Resource;
  if (typeof r.resourceType !== "string") throw badRequest("The resource has no resourceType");
  if (type && r.resourceType !== type) throw badRequest(`The body is a ${r.resourceType}, the URL names ${type}`);
  checkType(r.resourceType);
  if (READ_ONLY_TYPES.has(r.resourceType)) throw forbidden(`${r.resourceType} resources are written by the server only`);
  return r;
}

/** 403 for a type clients may not delete (AuditEvent: append-only), in a bundle as alone. */
export function deletable(type: string): void {
  if (READ_ONLY_TYPES.has(type)) throw forbidden(`${type} resources cannot be deleted`);
}
