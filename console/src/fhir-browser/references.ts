// Where a FHIR `reference` points inside this organization's store, as a console path: relative
// (`Patient/1`, `Patient/1/_history/2`) or an absolute URL under the organization's FHIR base path
// (the service writes them on its public base URL, which may not be the console's host).
// Contained (`#x`), logical-only and foreign references are not links.
const RELATIVE = /^([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/([A-Za-z0-9\-.]{1,64}))?$/;

/** `basePath`: the organization's FHIR base path, `/fhir/r4/<org>`. */
export function referenceTarget(reference: string, basePath: string): string | undefined {
  let rel = reference;
  if (/^https?:\/\//i.test(reference)) {
    let path: string;
    try {
      path = new URL(reference).pathname;
    } catch {
      return undefined;
    }
    if (!path.startsWith(`${basePath}/`)) return undefined;
    rel = path.slice(basePath.length + 1);
  }
  const m = RELATIVE.exec(rel);
  if (!m) return undefined;
  const [, type, id, vid] = m;
  return `/fhir-browser/${type}/${encodeURIComponent(id ?? "")}${vid ? `/_history/${encodeURIComponent(vid)}` : ""}`;
}
