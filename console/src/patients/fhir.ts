// FHIR helpers for the patient pages: the org's base path, search Bundles and their cursor links.
export interface Bundle<R> {
  total?: number;
  link?: { relation: string; url: string }[];
  entry?: { resource?: R; search?: { mode?: string } }[];
}

export const fhirBase = (orgId: string) => `/fhir/r4/${encodeURIComponent(orgId)}`;

/** The Bundle's matches (not _include'd resources). */
export const matches = <R>(b: Bundle<R>): R[] => (b.entry ?? []).filter((e) => e.search?.mode !== "include" && e.resource).map((e) => e.resource as R);

/** A paging link as a same-origin path (the service writes absolute URLs on its public base). */
export function linkPath(b: Bundle<unknown>, relation: "next" | "previous"): string | undefined {
  const url = b.link?.find((l) => l.relation === relation)?.url;
  if (!url) return undefined;
  const u = new URL(url, window.location.origin);
  return `${u.pathname}${u.search}`;
}

export interface HumanName {
  family?: string;
  given?: string[];
  text?: string;
}

export interface Patient {
  id: string;
  name?: HumanName[];
  birthDate?: string;
  gender?: string;
  identifier?: { system?: string; value?: string }[];
}

export const nameOf = (p: Patient): string => {
  const n = p.name?.[0];
  return n?.text ?? ([...(n?.given ?? []), n?.family].filter(Boolean).join(" ") || "(no name)");
};
