// A Folder (List, code folder) written on its own (PUT, conditional PUT, PATCH, POST, a batch
// entry) or by a transaction without an MHD profile is held to the rules ITI-65 applies to a
// Folder (provide-bundle.ts): status, an identifier unless the List declares the Minimal Folder
// profile, a subject that is a Patient of this organization, and entries that are
// DocumentReferences the caller may read, of that patient. A Folder's patient never changes
// (an XDS Folder's patientId is fixed): an update naming another patient than the stored version
// is XDSPatientIdDoesNotMatch. Failures: 400 OperationOutcome, one issue per violation with its
// XDS code (ITI TF-3 Table 4.2.4.1-2); nothing is stored.
import type { BundleCheck } from "../../../features/fhir";
import type { Bundle, BundleEntry, Resource } from "../../../platform/fhir-resource";
import type { WriteCheck } from "../../../features/fhir";
import { ApiError } from "../../../platform/errors";
import { type MhdIssue, type ReadStored, folderIssues, isFolder, optionOf, storedReader } from "./provide-bundle";

const MINIMAL_FOLDER = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.Minimal.Folder";
const XDS = "urn:oasis:names:tc:ebxml-regrep:ResponseStatusType";
type Ref = { reference?: string };

const subjectOf = (r: Resource | undefined) => (r?.subject as Ref | undefined)?.reference;

/** Everything wrong with a Folder about to be stored; `byUrl`: the other entries of its transaction, if any. */
export async function folderWriteIssues(folder: Resource, read: ReadStored, byUrl: ReadonlyMap<string, BundleEntry> = new Map()): Promise<MhdIssue[]> {
  const option = (folder.meta?.profile ?? []).some((p) => p.split("|")[0] === MINIMAL_FOLDER) ? "minimal" : "comprehensive";
  const previous = folder.id ? await read("List", folder.id) : undefined;
  const issues: MhdIssue[] = [];
  const subject = subjectOf(folder);
  let patient = subject;
  if (previous && isFolder(previous) && subjectOf(previous)) {
    patient = subjectOf(previous);
    if (subject && subject !== patient) issues.push({ code: "XDSPatientIdDoesNotMatch", message: `The Folder belongs to ${patient}; an update may not move it to ${subject}` });
  } else if (subject && !byUrl.get(subject)) {
    const id = /^(?:.*\/)?Patient\/([A-Za-z0-9\-.]{1,64})$/.exec(subject)?.[1];
    if (!id || !(await read("Patient", id))) issues.push({ code: "XDSUnknownPatientId", message: `The Folder's subject ${subject} is no Patient of this server` });
  }
  issues.push(...(await folderIssues(folder, option, patient, byUrl, read)));
  return issues;
}

/** The refusal of those issues: 400, one OperationOutcome issue per violation with its XDS code. */
export function folderRefusal(issues: readonly MhdIssue[]): ApiError | undefined {
  if (issues.length === 0) return undefined;
  const details = issues.map((i) => ({ path: "List", message: `${i.code}: ${i.message}`, coding: { system: XDS, code: i.code } }));
  return new ApiError(400, "MHD_FOLDER_INVALID", issues.map((i) => i.message).join("; "), details);
}

export const folderWriteCheck: WriteCheck = {
  types: ["List"],
  async check(resource, store) {
    return isFolder(resource) ? folderRefusal(await folderWriteIssues(resource, storedReader(store))) : undefined;
  },
};

/** A transaction without an MHD profile that writes Folders: each held to the same rules (an ITI-65 Bundle checks its own). */
export const folderTransactionCheck: BundleCheck = {
  applies: (bundle: Bundle) => bundle.type === "transaction" && optionOf(bundle) === undefined && (bundle.entry ?? []).some((e) => e.resource && isFolder(e.resource)),
  async check(bundle, store) {
    const entries = bundle.entry ?? [];
    const byUrl = new Map(entries.flatMap((e) => (e.fullUrl && e.resource ? [[e.fullUrl, e] as const] : [])));
    const issues: MhdIssue[] = [];
    for (const e of entries) {
      if (!e.resource || !isFolder(e.resource) || e.request?.method === "DELETE") continue;
      // A PUT names its Folder by URL; the stored version is the one its patient is fixed by.
      const id = e.request?.method === "PUT" ? /^List\/([A-Za-z0-9\-.]{1,64})$/.exec(e.request.url ?? "")?.[1] : undefined;
      issues.push(...(await folderWriteIssues(id ? { ...e.resource, id } : { ...e.resource, id: undefined }, storedReader(store), byUrl)));
    }
    const refusal = folderRefusal(issues);
    if (!refusal) return undefined;
    return { status: 400, body: { resourceType: "OperationOutcome", issue: refusal.details.map((d) => ({ severity: "error", code: "invalid", details: { coding: [d.coding!], text: d.coding!.code }, diagnostics: d.message })) } };
  },
};

export const MHD_WRITE_CHECKS: readonly WriteCheck[] = [folderWriteCheck];
