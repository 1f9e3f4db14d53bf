// The entries of a batch, and the reads of a transaction: each entry is the same interaction of
// the dispatcher a single request would be (FhirService), and answers as that request would.
import { badRequest } from "../../platform/errors";
import { type ParsedEntry, errorEntry, needBody, parseEntry, patchBody, readEntry, writeResponse } from "./bundle-entry";
import type { BundleEntry } from "./port";
import type { FhirService } from "./service";

/** A batch: each entry runs on its own, and its outcome (an error too) is its response entry. */
export async function runBatch(service: FhirService, entries: BundleEntry[]): Promise<BundleEntry[]> {
  const out: BundleEntry[] = [];
  for (const [i, entry] of entries.entries()) {
    try {
      const p = parseEntry(entry, i);
      out.push(await runSingle(service, p));
    } catch (e) {
      out.push(errorEntry(e));
    }
  }
  return out;
}

/** One entry as its own interaction (batch entries and the reads of a transaction). */
export async function runSingle(service: FhirService, p: ParsedEntry): Promise<BundleEntry> {
  const body = p.entry.resource;
  const ifMatch = p.entry.request?.ifMatch;
  switch (p.method) {
    case "GET":
    case "HEAD": {
      if (p.id && p.rest[0] === "_history" && p.rest[1]) return readEntry(await service.vread(p.type, p.id, p.rest[1]), service.baseUrl);
      if (p.id && p.rest[0] === "_history") return { resource: await service.history({ type: p.type, id: p.id }, p.query), response: { status: "200 OK" } };
      if (p.id) return readEntry(await service.read(p.type, p.id), service.baseUrl);
      return { resource: await service.search(p.type || undefined, p.query ?? ""), response: { status: "200 OK" } };
    }
    case "POST":
      return writeResponse(await service.create(needBody(body, p), { ifNoneExist: p.entry.request?.ifNoneExist }), service.baseUrl);
    case "PUT":
      if (p.query !== undefined && !p.id) return writeResponse(await service.conditionalUpdate(p.query, needBody(body, p), { ifMatch }), service.baseUrl);
      if (!p.id) throw badRequest(`PUT needs Type/id or a conditional URL (entry ${p.index})`);
      return writeResponse(await service.update({ ...needBody(body, p), id: p.id }, { ifMatch }), service.baseUrl);
    case "PATCH":
      if (!p.id) throw badRequest(`PATCH needs Type/id (entry ${p.index})`);
      return writeResponse(await service.patch(p.type, p.id, patchBody(body), { ifMatch }), service.baseUrl);
    case "DELETE":
      if (p.id) await service.delete(p.type, p.id, { ifMatch });
      else await service.conditionalDelete(p.type, p.query ?? "");
      return { response: { status: "204 No Content" } };
  }
}
