// A history page (instance, type or system level): the versions newest first, a page at a time
// behind an opaque cursor, each as the entry of the interaction that made it; what the access
// policy withholds is left out (a deletion carries no content to judge and stays).
import { badRequest, notFound } from "../../platform/errors";
import type { AccessChecks } from "./access-checks";
import { decodeHistoryCursor, encodeHistoryCursor } from "./history-cursor";
import type { Bundle, BundleEntry } from "./port";
import type { FhirRepository } from "./repository";
import { parseCount } from "./search/parse";
import type { StoredVersion } from "./storage/resource-store";

export async function historyBundle(repository: FhirRepository, access: AccessChecks, baseUrl: string, scope: { type?: string; id?: string }, params: URLSearchParams): Promise<Bundle> {
  const { orgId } = repository;
  const count = parseCount(params.get("_count"));
  const since = params.get("_since") ?? undefined;
  if (since && Number.isNaN(Date.parse(since))) throw badRequest(`Invalid _since ${since}`);
  const before = decodeHistoryCursor(params.get("_cursor"), orgId);
  const rows = await repository.history({ ...scope, since: since && new Date(since).toISOString(), before, count: count + 1 });
  if (scope.id && rows.length === 0 && !before) {
    const current = await repository.current(scope.type!, scope.id);
    if (!current) throw notFound(`${scope.type}/${scope.id} not found`);
  }
  const page = rows.slice(0, count);
  const path = [scope.type, scope.id].filter(Boolean).join("/");
  const link = (cursor?: string) => {
    const p = new URLSearchParams([...params].filter(([k]) => k !== "_cursor"));
    if (cursor) p.set("_cursor", cursor);
    return `${baseUrl}${path ? `/${path}` : ""}/_history${p.size ? `?${p}` : ""}`;
  };
  const last = page[page.length - 1];
  const links = [{ relation: "self", url: link(params.get("_cursor") ?? undefined) }];
  if (rows.length > count && last) links.push({ relation: "next", url: link(encodeHistoryCursor(orgId, last)) });
  const entries = await Promise.all(page.map((v) => historyEntry(repository, baseUrl, v)));
  // Deletions carry no content to judge; the versions before them are judged on theirs.
  const shown = new Set(
    await access.visible(
      "read",
      entries.filter((e) => e.resource),
      (e) => e.resource!,
    ),
  );
  const entry = await Promise.all(entries.filter((e) => !e.resource || shown.has(e)).map(async (e) => (e.resource ? { ...e, resource: await access.shown(e.resource) } : e)));
  return { resourceType: "Bundle", id: crypto.randomUUID(), type: "history", link: links, entry } satisfies Bundle;
}

async function historyEntry(repository: FhirRepository, baseUrl: string, v: StoredVersion): Promise<BundleEntry> {
  const fullUrl = `${baseUrl}/${v.resourceType}/${v.id}`;
  const response = { status: v.deleted ? "410 Gone" : v.versionId === 1 ? "201 Created" : "200 OK", etag: `W/"${v.versionId}"`, lastModified: v.lastUpdated };
  if (v.deleted) return { fullUrl, request: { method: "DELETE", url: `${v.resourceType}/${v.id}` }, response };
  return {
    fullUrl,
    resource: await repository.hydrate(v.content),
    request: { method: v.versionId === 1 ? "POST" : "PUT", url: v.versionId === 1 ? v.resourceType : `${v.resourceType}/${v.id}` },
    response,
  };
}
