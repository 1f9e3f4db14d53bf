// The FHIR REST writes as a route receives them: a body still to check against the URL
// (type, id, search criteria) before the store's interaction runs. One function per endpoint.
import { badRequest, methodNotAllowed } from "../../platform/errors";
import type { WriteResult } from "./port";
import { writable } from "./resource-rules";
import type { FhirService } from "./service";

/** POST [type]: create, conditionally under If-None-Exist. */
export function createAt(store: FhirService, type: string, body: unknown, ifNoneExist?: string): Promise<WriteResult> {
  return store.create(writable(body, type), { ifNoneExist });
}

/** PUT [type]/[id]: update, or create with that id; the body's id, if any, must be the URL's. */
export function updateAt(store: FhirService, type: string, id: string, body: unknown, ifMatch?: string): Promise<WriteResult> {
  const resource = writable(body, type);
  if (resource.id !== undefined && resource.id !== id) throw badRequest(`The body's id ${String(resource.id)} differs from the URL's ${id}`);
  return store.update({ ...resource, id }, { ifMatch });
}

/** PUT [type]?criteria: conditional update. */
export function conditionalUpdateAt(store: FhirService, type: string, query: string, body: unknown, ifMatch?: string): Promise<WriteResult> {
  if (!query) throw methodNotAllowed("PUT on a type needs search criteria (conditional update)");
  return store.conditionalUpdate(query, writable(body, type), { ifMatch });
}

/** DELETE [type]?criteria: conditional delete. */
export async function conditionalDeleteAt(store: FhirService, type: string, query: string): Promise<void> {
  if (!query) throw methodNotAllowed("DELETE on a type needs search criteria (conditional delete)");
  await store.conditionalDelete(type, query);
}
