// MHD ITI-65 Provide Document Bundle: the Document Recipient's checks before anything is
// stored (reference fhir.md 5.1; the guide's profiles, IHE ITI.MHD 4.2.x input/fsh). A transaction
// whose meta.profile names an MHD ProvideBundle profile must hold exactly one SubmissionSet List and
// at least one DocumentReference; Binaries that attachment.url points at must be in the Bundle with
// matching size and SHA-1 hash; the subject must be one Patient found in the Bundle or the store;
// the DocumentReferences, SubmissionSet and Folders carry what their profile requires for the
// option (Minimal, Comprehensive, UnContained Comprehensive), with Comprehensive's author,
// authenticator, sourcePatientInfo and SubmissionSet source contained; a replacement (relatesTo
// replaces) marks the old DocumentReference superseded in the same transaction, by the guide's
// PATCH (UpdateDocumentRefs: IHE.MHD.Patch.Parameters) or by a PUT of the whole resource; each
// Folder names the same patient and lists only DocumentReferences (of the Bundle, or stored ones
// of that patient); each SubmissionSet intendedRecipient (Comprehensive) resolves to a recipient.
// Failures: 400 OperationOutcome with the XDS error codes (ITI TF-3 Table 4.2.4.1-2).
import type { BundleCheck } from "../../../features/fhir";
import type { Bundle, BundleEntry, Resource } from "../../../platform/fhir-resource";
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
type Attachment = { url?: string; size?: number; hash?: string; contentType?: string; language?: string; creation?: string; data?: string };
type DocRef = Resource & {
  masterIdentifier?: unknown;
  status?: string;
  type?: unknown;
  category?: unknown[];
  subject?: Ref;
  author?: Ref[];
  authenticator?: Ref;
  securityLabel?: unknown[];
  relatesTo?: { code?: string; target?: Ref }[];
  content?: { attachment?: Attachment; format?: unknown }[];
  context?: { facilityType?: unknown; practiceSetting?: unknown; sourcePatientInfo?: Ref };
};
type Extension = { url?: string; valueReference?: Ref & { identifier?: unknown; display?: string }; valueIdentifier?: { value?: string }; valueCodeableConcept?: unknown };

export const optionOf = (bundle: Bundle): MhdOption | undefined => {
  const profiles = bundle.meta?.profile ?? [];
  return (Object.keys(MHD_PROFILES) as MhdOption[]).find((k) => profiles.some((p) => p.split("|")[0] === MHD_PROFILES[k]));
};

/** Read defensively: a bundle check's `applies` and the guide's audit see resources before validation (bundle-check.ts). */
const isListOf = (r: Resource, code: string) => {
  const coding = (r.code as { coding?: unknown } | undefined)?.coding;
  return r.resourceType === "List" && Array.isArray(coding) && coding.some((c) => (c as { code?: unknown } | null)?.code === code);
};
export const isSubmissionSet = (r: Resource) => isListOf(r, "submissionset");
export const isFolder = (r: Resource) => isListOf(r, "folder");

export const INTENDED_RECIPIENT = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-intendedRecipient";
export const SOURCE_ID = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-sourceId";
export const DESIGNATION_TYPE = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-designationType";
/** What an intendedRecipient may name (the IntendedRecipient extension's valueReference targets). */
const RECIPIENT_TYPES = new Set(["Practitioner", "Organization", "Patient", "RelatedPerson", "Group", "Device", "Location"]);
const STORED_REF = /^(?:.*\/)?([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})$/;

const extensions = (r: Resource, url: string) => ((r.extension as Extension[] | undefined) ?? []).filter((e) => e.url === url);
const absent = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

/** The resource a contained reference ("#id") names inside `holder`, if it is one. */
const containedIn = (holder: Resource, ref: string | undefined): Resource | undefined =>
  ref?.startsWith("#") ? ((holder.contained as Resource[] | undefined) ?? []).find((c) => c.id === ref.slice(1)) : undefined;

/** Comprehensive (not UnContained) keeps these as contained copies, as they were known at publication (ITI-65 §2:3.65.4.1.2.2). */
function uncontained(holder: Resource, refs: [string, Ref | undefined][]): string[] {
  return refs.filter(([, r]) => r?.reference !== undefined && !containedIn(holder, r.reference)).map(([k]) => k);
}

/**
 * What a created DocumentReference lacks for its option: IHE.MHD.Minimal.DocumentReference for
 * every option, IHE.MHD.UnContained.Comprehensive.DocumentReference's 1..1 elements beyond
 * Minimal, and IHE.MHD.Comprehensive.DocumentReference's contained author, authenticator and
 * sourcePatientInfo.
 */
function documentProblems(doc: DocRef, option: MhdOption): string[] {
  const problems: string[] = [];
  const content = doc.content ?? [];
  const a = content[0]?.attachment;
  const need: [string, unknown][] = [
    ["masterIdentifier", doc.masterIdentifier],
    ["status", doc.status],
    ["content.attachment.contentType", a?.contentType],
    ["content.attachment.url", a?.url],
  ];
  if (option !== "minimal") {
    need.push(
      ["type", doc.type],
      ["category", doc.category],
      ["subject", doc.subject],
      ["securityLabel", doc.securityLabel],
      ["content.attachment.language", a?.language],
      ["content.attachment.creation", a?.creation],
      ["content.format", content[0]?.format],
      ["context.facilityType", doc.context?.facilityType],
      ["context.practiceSetting", doc.context?.practiceSetting],
      ["context.sourcePatientInfo", doc.context?.sourcePatientInfo],
    );
  }
  const missing = need.filter(([, v]) => absent(v)).map(([k]) => k);
  if (missing.length) problems.push(`lacks ${missing.join(", ")}`);
  if (doc.status !== undefined && doc.status !== "current" && doc.status !== "superseded") problems.push(`has status ${doc.status} (current or superseded)`);
  if (content.length > 1) problems.push(`has ${content.length} content elements (one)`);
  if (a?.data !== undefined) problems.push("carries content.attachment.data (the document goes in a Binary or at url)");
  if (option !== "minimal" && (doc.category?.length ?? 0) > 1) problems.push(`has ${doc.category!.length} categories (one)`);
  if (option === "comprehensive") {
    const loose = uncontained(doc, [...(doc.author ?? []).map((r) => ["author", r] as [string, Ref]), ["authenticator", doc.authenticator], ["context.sourcePatientInfo", doc.context?.sourcePatientInfo]]);
    if (loose.length) problems.push(`references ${[...new Set(loose)].join(", ")} outside its contained resources (Comprehensive; UnContained allows it)`);
    const source = containedIn(doc, doc.context?.sourcePatientInfo?.reference);
    if (source && source.resourceType !== "Patient") problems.push(`names a contained ${source.resourceType} as sourcePatientInfo (a Patient)`);
  }
  return problems;
}

/** What the SubmissionSet lacks for its option (IHE.MHD.Minimal / UnContained.Comprehensive / Comprehensive.SubmissionSet). */
function submissionSetProblems(set: Resource, option: MhdOption): string[] {
  const problems: string[] = [];
  const sourceIds = extensions(set, SOURCE_ID);
  if (sourceIds.length !== 1 || !sourceIds[0]!.valueIdentifier?.value) problems.push(`needs exactly one ihe-sourceId extension with a valueIdentifier, it has ${sourceIds.length}`);
  if (absent(set.date)) problems.push("lacks date");
  if (set.status !== "current") problems.push(`has status ${set.status ?? "(none)"} (current)`);
  if (set.mode !== "working") problems.push(`has mode ${set.mode ?? "(none)"} (working)`);
  const designations = extensions(set, DESIGNATION_TYPE);
  if (designations.length > 1) problems.push(`has ${designations.length} ihe-designationType extensions (at most one)`);
  if (option !== "minimal") {
    if (absent(set.identifier)) problems.push("lacks identifier (the XDS uniqueId, Comprehensive)");
    if (absent(set.subject)) problems.push("lacks subject (Comprehensive)");
    if (designations.length !== 1 || absent(designations[0]!.valueCodeableConcept)) problems.push("needs an ihe-designationType extension with a valueCodeableConcept (Comprehensive)");
  }
  if (option === "comprehensive" && uncontained(set, [["source", set.source as Ref | undefined]]).length) problems.push("references its source (author) outside its contained resources (Comprehensive; UnContained allows it)");
  return problems;
}

/** IHE.MHD.Comprehensive.Folder beyond the rules every Folder meets (folderIssues): a title and at least one designationType. */
function comprehensiveFolderProblems(folder: Resource): string[] {
  const problems: string[] = [];
  if (absent(folder.title)) problems.push("lacks title");
  if (!extensions(folder, DESIGNATION_TYPE).some((e) => !absent(e.valueCodeableConcept))) problems.push("lacks an ihe-designationType extension");
  return problems;
}

/** IHE.MHD.Patch.Parameters: one FHIRPath Patch operation replacing DocumentReference.status with superseded. */
function isSupersedePatch(r: Resource | undefined): boolean {
  type Part = { name?: string; valueCode?: string; valueString?: string };
  const ops = ((r?.parameter as { name?: string; part?: Part[] }[] | undefined) ?? []).filter((p) => p.name === "operation");
  if (r?.resourceType !== "Parameters" || ops.length !== 1) return false;
  const part = (name: string) => (ops[0]!.part ?? []).filter((p) => p.name === name);
  const [type, path, value] = [part("type"), part("path"), part("value")];
  return type.length === 1 && type[0]!.valueCode === "replace" && path.length === 1 && path[0]!.valueString === "DocumentReference.status" && value.length === 1 && value[0]!.valueCode === "superseded";
}

/** "Type/id" of a reference or request URL, relative or absolute. */
const typeAndId = (ref: string | undefined) => {
  const m = STORED_REF.exec(ref ?? "");
  return m ? `${m[1]}/${m[2]}` : undefined;
};

/** Whether an entry marks `target` superseded: the guide's PATCH (UpdateDocumentRefs), or a PUT of the whole DocumentReference. */
function supersedes(e: BundleEntry, target: string): boolean {
  if (typeAndId(e.request?.url) !== target) return false;
  if (e.request?.method === "PATCH") return isSupersedePatch(e.resource);
  return e.request?.method === "PUT" && e.resource?.resourceType === "DocumentReference" && e.resource.status === "superseded";
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
  for (const r of extensions(set, INTENDED_RECIPIENT)) {
    const v = r.valueReference;
    if (!v || (!v.reference && !v.identifier && !v.display)) {
      issues.push({ code: "XDSRegistryMetadataError", message: "An intendedRecipient has no valueReference" });
      continue;
    }
    if (!v.reference) continue; // named by identifier or display only (an XDR recipient outside this server): nothing to resolve
    // A contained recipient (the guide's examples carry a Practitioner known only by e-mail so) is part of the SubmissionSet.
    const target = v.reference.startsWith("#") ? containedIn(set, v.reference) : await resolve(v.reference, byUrl, read);
    if (!target || !RECIPIENT_TYPES.has(target.resourceType)) issues.push({ code: "UnknownRecipient", message: `The intendedRecipient ${v.reference} is no Practitioner, Organization, Patient, RelatedPerson, Group, Device or Location known here` });
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
  if (sets[0]) for (const p of submissionSetProblems(sets[0], option)) meta(`The SubmissionSet ${p} (${option} metadata)`);
  // Documents created by this Bundle (POST); a PUT of an existing DocumentReference is an update (a replacement's superseded mark).
  const created = entries.filter((e) => e.resource?.resourceType === "DocumentReference" && e.request?.method === "POST").map((e) => e.resource as DocRef);
  if (created.length === 0) meta("The Bundle must create at least one DocumentReference");

  for (const doc of created) {
    for (const p of documentProblems(doc, option)) meta(`A DocumentReference ${p} (${option} metadata)`);
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
      const key = typeAndId(target);
      if (!key || !entries.some((e) => supersedes(e, key))) meta(`A replacement of ${target} must mark it superseded in the same transaction (PATCH with IHE.MHD.Patch.Parameters, or PUT)`);
    }
  }
  // UpdateDocumentRefs: the only PATCH an ITI-65 Bundle carries sets a DocumentReference's status to superseded.
  for (const e of entries.filter((x) => x.request?.method === "PATCH")) {
    if (!typeAndId(e.request?.url)?.startsWith("DocumentReference/") || !isSupersedePatch(e.resource)) meta(`The PATCH of ${e.request?.url} is no IHE.MHD.Patch.Parameters (replace DocumentReference.status with superseded)`);
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
  for (const folder of resources.filter(isFolder)) {
    issues.push(...(await folderIssues(folder, option, patient, byUrl, read)));
    if (option !== "minimal") for (const p of comprehensiveFolderProblems(folder)) meta(`A Folder ${p} (Comprehensive)`);
  }
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
