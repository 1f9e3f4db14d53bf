// MHD ITI-65 Provide Document Bundle: the Document Recipient's checks before anything is
// stored (reference fhir.md 5.1). A transaction whose meta.profile names an MHD ProvideBundle
// profile must hold exactly one SubmissionSet List and at least one DocumentReference; Binaries
// that attachment.url points at must be in the Bundle with matching size and SHA-1 hash; the
// subject must be one Patient found in the Bundle or the store; the option's required metadata
// must be present; a replacement (relatesTo replaces) must mark the old DocumentReference
// superseded in the same transaction; each Folder List (code folder) names the same patient and
// lists only DocumentReferences (of the Bundle, or stored ones of that patient); each
// SubmissionSet intendedRecipient (Comprehensive) resolves to a recipient the server knows.
// Failures: 400 OperationOutcome with the XDS error codes (ITI TF-3 Table 4.2.4.1-2).
import type { BundleCheck } from "../../../features/fhir/bundle-check";
import type { Bundle, BundleEntry, Resource } from "../../../features/fhir/port";
import { sizeAndHash } from "./document-bytes";

const BASE = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/";
export const MHD_PROFILES = {
  minimal: `${BASE}IHE.MHD.Minimal.ProvideBundle`,
  comprehensive: `${BASE}IHE.MHD.Comprehensive.ProvideBundle`,
  uncontained: `${BASE}IHE.MHD.UnContained.Comprehensive.ProvideBundle`,
} as const;
type MhdOption = keyof typeof MHD_PROFILES;

/** ITI TF-3 Table 4.2.4.1-2 (XDS) error codes. */
export type MhdErrorCode =
  | "XDSRegistryMetadataError"
  | "XDSMissingDocument"
  | "XDSNonIdenticalHash"
  | "XDSNonIdenticalSize"
  | "XDSUnknownPatientId"
  | "XDSPatientIdDoesNotMatch"
  | "XDSRepositoryMetadataError"
  | "UnknownRecipient";

/** Reads a stored resource of the caller's organization, undefined when there is none it may read. */
export type ReadStored = (type: string, id: string) => Promise<Resource | undefined>;

export interface MhdIssue {
  code: MhdErrorCode;
  message: string;
}

type Ref = { reference?: string };
type Attachment = { url?: string; size?: number; hash?: string; contentType?: string };
type DocRef = Resource & {
  masterIdentifier?: unknown;
  status?: string;
  type?: unknown;
  category?: unknown[];
  subject?: Ref;
  date?: string;
  author?: unknown[];
  securityLabel?: unknown[];
  relatesTo?: { code?: string; target?: Ref }[];
  content?: { attachment?: Attachment; format?: unknown }[];
  context?: { facilityType?: unknown; practiceSetting?: unknown };
};

export const optionOf = (bundle: Bundle): MhdOption | undefined => {
  const profiles = bundle.meta?.profile ?? [];
  return (Object.keys(MHD_PROFILES) as MhdOption[]).find((k) => profiles.some((p) => p.split("|")[0] === MHD_PROFILES[k]));
};

const isListOf = (r: Resource, code: string) => r.resourceType === "List" && ((r.code as { coding?: { code?: string }[] } | undefined)?.coding ?? []).some((c) => c.code === code);
export const isSubmissionSet = (r: Resource) => isListOf(r, "submissionset");
export const isFolder = (r: Resource) => isListOf(r, "folder");

export const INTENDED_RECIPIENT = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-intendedRecipient";
/** What an intendedRecipient may name (the extension's valueReference targets). */
const RECIPIENT_TYPES = new Set(["Practitioner", "PractitionerRole", "Organization", "Patient", "RelatedPerson", "Group"]);
const STORED_REF = /^(?:.*\/)?([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})$/;

/** The required metadata of each option ("XDS DS" for Comprehensive, "XDR MS" for Minimal), as FHIR elements. */
function missingMetadata(doc: DocRef, option: MhdOption): string[] {
  const need: [string, unknown][] = [
    ["masterIdentifier", doc.masterIdentifier],
    ["status", doc.status],
    ["content.attachment.contentType", doc.content?.[0]?.attachment?.contentType],
  ];
  if (option !== "minimal") {
    need.push(
      ["type", doc.type],
      ["category", doc.category?.[0]],
      ["subject", doc.subject],
      ["date", doc.date],
      ["securityLabel", doc.securityLabel?.[0]],
      ["content.format", doc.content?.[0]?.format],
      ["context.facilityType", doc.context?.facilityType],
      ["context.practiceSetting", doc.context?.practiceSetting],
    );
  }
  return need.filter(([, v]) => v === undefined || v === null).map(([k]) => k);
}

/** The resource a reference names: an entry of the Bundle by fullUrl, or a stored one ("Type/id", absolute or not). */
async function resolve(ref: string, byUrl: ReadonlyMap<string, BundleEntry>, read: ReadStored): Promise<Resource | undefined> {
  const inBundle = byUrl.get(ref)?.resource;
  if (inBundle) return inBundle;
  const m = STORED_REF.exec(ref);
  return m ? read(m[1]!, m[2]!) : undefined;
}

/** Folder rules: status, Comprehensive identifier, the Bundle's patient, and entries that are DocumentReferences of that patient. */
export async function folderIssues(folder: Resource, option: MhdOption, patient: string | undefined, byUrl: ReadonlyMap<string, BundleEntry>, read: ReadStored): Promise<MhdIssue[]> {
  const issues: MhdIssue[] = [];
  const meta = (message: string) => issues.push({ code: "XDSRegistryMetadataError", message });
  if (!folder.status) meta("A Folder lacks status");
  if (option !== "minimal" && !(Array.isArray(folder.identifier) && folder.identifier.length)) meta("A Folder needs an identifier (Comprehensive)");
  const subject = (folder.subject as Ref | undefined)?.reference;
  if (!subject) meta("A Folder lacks subject");
  else if (patient !== undefined && subject !== patient) issues.push({ code: "XDSPatientIdDoesNotMatch", message: `A Folder names ${subject}, the SubmissionSet ${patient}` });
  for (const item of (folder.entry as { item?: Ref }[] | undefined) ?? []) {
    const ref = item.item?.reference;
    const target = ref ? await resolve(ref, byUrl, read) : undefined;
    if (target?.resourceType !== "DocumentReference") {
      meta(`A Folder entry ${ref ?? "(no reference)"} is no DocumentReference of the Bundle or this server`);
      continue;
    }
    const of = (target.subject as Ref | undefined)?.reference;
    // A document of the Bundle names the patient as the Bundle does; a stored one as "Patient/id".
    const same = byUrl.has(ref!) ? of === patient : of !== undefined && patient !== undefined && samePatient(of, patient, byUrl);
    if (patient !== undefined && !same) issues.push({ code: "XDSPatientIdDoesNotMatch", message: `A Folder entry ${ref} is a document of ${of ?? "no patient"}, not of ${patient}` });
  }
  return issues;
}

/** Whether a stored document's patient reference and the Bundle's patient reference name the same Patient. */
function samePatient(stored: string, patient: string, byUrl: ReadonlyMap<string, BundleEntry>): boolean {
  const id = STORED_REF.exec(stored)?.[2];
  const bundled = byUrl.get(patient)?.resource;
  return id !== undefined && (STORED_REF.exec(patient)?.[2] === id || bundled?.id === id);
}

/** intendedRecipient (Comprehensive): each reference resolves to a recipient type the Bundle or the server holds. */
async function recipientIssues(set: Resource, byUrl: ReadonlyMap<string, BundleEntry>, read: ReadStored): Promise<MhdIssue[]> {
  const issues: MhdIssue[] = [];
  const recipients = ((set.extension as { url?: string; valueReference?: Ref & { identifier?: unknown; display?: string } }[] | undefined) ?? []).filter((e) => e.url === INTENDED_RECIPIENT);
  for (const r of recipients) {
    const v = r.valueReference;
    if (!v || (!v.reference && !v.identifier && !v.display)) {
      issues.push({ code: "XDSRegistryMetadataError", message: "An intendedRecipient has no valueReference" });
      continue;
    }
    if (!v.reference) continue; // named by identifier or display only (an XDR recipient outside this server): nothing to resolve
    const target = await resolve(v.reference, byUrl, read);
    if (!target || !RECIPIENT_TYPES.has(target.resourceType)) issues.push({ code: "UnknownRecipient", message: `The intendedRecipient ${v.reference} is no Practitioner, PractitionerRole, Organization, Patient, RelatedPerson or Group known here` });
  }
  return issues;
}

/** Everything wrong with an ITI-65 Bundle under its option; `read` asks the store (the caller's organization only). */
export async function provideBundleIssues(bundle: Bundle, read: ReadStored): Promise<MhdIssue[]> {
  const option = optionOf(bundle) ?? "comprehensive";
  const issues: MhdIssue[] = [];
  const meta = (message: string) => issues.push({ code: "XDSRegistryMetadataError", message });
  if (bundle.type !== "transaction") meta("An ITI-65 Provide Document Bundle is a transaction");
  const entries: BundleEntry[] = Array.isArray(bundle.entry) ? bundle.entry : [];
  const byUrl = new Map(entries.flatMap((e) => (e.fullUrl && e.resource ? [[e.fullUrl, e] as const] : [])));
  const resources = entries.flatMap((e) => (e.resource ? [e.resource] : []));

  const sets = resources.filter(isSubmissionSet);
  if (sets.length !== 1) meta(`The Bundle must hold exactly one SubmissionSet List, it holds ${sets.length}`);
  if (option !== "minimal" && sets[0] && !(sets[0].identifier && sets[0].date)) meta("The SubmissionSet needs identifier and date (Comprehensive)");
  // Documents created by this Bundle (POST); a PUT of an existing DocumentReference is an update (a replacement's superseded mark).
  const created = entries.filter((e) => e.resource?.resourceType === "DocumentReference" && e.request?.method === "POST").map((e) => e.resource as DocRef);
  if (created.length === 0) meta("The Bundle must create at least one DocumentReference");

  for (const doc of created) {
    const missing = missingMetadata(doc, option);
    if (missing.length) meta(`A DocumentReference lacks ${missing.join(", ")} (${option} metadata)`);
    for (const c of doc.content ?? []) {
      const a = c.attachment ?? {};
      if (!a.url || !/^(urn:uuid:|Binary\/|.*\/Binary\/)/.test(a.url)) continue; // not a Binary: FHIR document or external
      const binary = byUrl.get(a.url)?.resource ?? entries.find((e) => e.resource?.resourceType === "Binary" && a.url!.endsWith(`Binary/${e.resource.id}`))?.resource;
      if (binary?.resourceType !== "Binary" || typeof binary.data !== "string") {
        issues.push({ code: "XDSMissingDocument", message: `attachment.url ${a.url} names no Binary with data in the Bundle` });
        continue;
      }
      const actual = await sizeAndHash(binary.data);
      if (a.size !== undefined && a.size !== actual.size) issues.push({ code: "XDSNonIdenticalSize", message: `attachment.size ${a.size} but the Binary has ${actual.size} bytes` });
      if (a.hash !== undefined && a.hash !== actual.hash) issues.push({ code: "XDSNonIdenticalHash", message: `attachment.hash ${a.hash} but the Binary's SHA-1 is ${actual.hash}` });
    }
    for (const r of doc.relatesTo ?? []) {
      if (r.code !== "replaces") continue;
      const target = r.target?.reference ?? "";
      const marked = entries.some(
        (e) => e.resource?.resourceType === "DocumentReference" && e.request?.method === "PUT" && e.request.url === target && e.resource.status === "superseded",
      );
      if (!marked) meta(`A replacement of ${target} must update it to status superseded in the same transaction`);
    }
  }

  // One patient: the subject of every created DocumentReference and of the SubmissionSet.
  const subjects = [...created.map((d) => d.subject?.reference), ...sets.map((s) => (s.subject as Ref | undefined)?.reference)].filter((s): s is string => s !== undefined);
  const distinct = [...new Set(subjects)];
  if (distinct.length > 1) issues.push({ code: "XDSPatientIdDoesNotMatch", message: `The documents and the SubmissionSet name different patients: ${distinct.join(", ")}` });
  for (const ref of distinct) {
    const inBundle = byUrl.get(ref)?.resource;
    if (inBundle) {
      if (inBundle.resourceType !== "Patient") issues.push({ code: "XDSUnknownPatientId", message: `${ref} is a ${inBundle.resourceType}, not a Patient` });
      continue;
    }
    const m = /^(?:.*\/)?Patient\/([A-Za-z0-9\-.]{1,64})$/.exec(ref);
    if (!m || !(await read("Patient", m[1]!))) issues.push({ code: "XDSUnknownPatientId", message: `The subject ${ref} is no Patient of this server or the Bundle` });
  }

  const patient = (sets[0]?.subject as Ref | undefined)?.reference ?? distinct[0];
  for (const folder of resources.filter(isFolder)) issues.push(...(await folderIssues(folder, option, patient, byUrl, read)));
  if (option !== "minimal" && sets[0]) issues.push(...(await recipientIssues(sets[0], byUrl, read)));
  return issues;
}

/** Reads through the caller's store (or a pipeline's port): what it may not read, or that is not there, is undefined. */
export const storedReader =
  (store: { read(type: string, id: string): Promise<unknown> }): ReadStored =>
  async (type, id) => {
    try {
      return (await store.read(type, id)) as Resource;
    } catch {
      return undefined;
    }
  };

export const provideBundleCheck: BundleCheck = {
  applies: (bundle) => optionOf(bundle) !== undefined,
  async check(bundle, store) {
    const issues = await provideBundleIssues(bundle, storedReader(store));
    if (issues.length === 0) return undefined;
    return {
      status: 400,
      body: {
        resourceType: "OperationOutcome",
        issue: issues.map((i) => ({
          severity: "error",
          code: i.code === "XDSUnknownPatientId" || i.code === "XDSMissingDocument" || i.code === "UnknownRecipient" ? "not-found" : "invalid",
          details: { coding: [{ system: "urn:oasis:names:tc:ebxml-regrep:ResponseStatusType", code: i.code }], text: i.code },
          diagnostics: i.message,
        })),
      },
    };
  },
};

export const MHD_BUNDLE_CHECKS: readonly BundleCheck[] = [provideBundleCheck];
