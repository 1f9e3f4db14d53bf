// MHD ITI-65 Provide Document Bundle: the Document Recipient's checks before anything is
// stored (reference fhir.md 5.1). A transaction whose meta.profile names an MHD ProvideBundle
// profile must hold exactly one SubmissionSet List and at least one DocumentReference; Binaries
// that attachment.url points at must be in the Bundle with matching size and SHA-1 hash; the
// subject must be one Patient found in the Bundle or the store; the option's required metadata
// must be present; a replacement (relatesTo replaces) must mark the old DocumentReference
// superseded in the same transaction. Failures: 400 OperationOutcome with the XDS error codes.
import type { BundleCheck } from "../../../features/fhir/bundle-check";
import type { Bundle, BundleEntry, Resource } from "../../../features/fhir/port";

const BASE = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/";
export const MHD_PROFILES = {
  minimal: `${BASE}IHE.MHD.Minimal.ProvideBundle`,
  comprehensive: `${BASE}IHE.MHD.Comprehensive.ProvideBundle`,
  uncontained: `${BASE}IHE.MHD.UnContained.Comprehensive.ProvideBundle`,
} as const;
type MhdOption = keyof typeof MHD_PROFILES;

/** ITI TF-3 Table 4.2.4.1-2 (XDS) error codes. */
export type MhdErrorCode = "XDSRegistryMetadataError" | "XDSMissingDocument" | "XDSNonIdenticalHash" | "XDSNonIdenticalSize" | "XDSUnknownPatientId" | "XDSPatientIdDoesNotMatch" | "XDSRepositoryMetadataError";

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

export const isSubmissionSet = (r: Resource) =>
  r.resourceType === "List" && ((r.code as { coding?: { code?: string }[] } | undefined)?.coding ?? []).some((c) => c.code === "submissionset");

/** The raw bytes' size and base64 SHA-1, as attachment.size and attachment.hash describe them. */
export async function sizeAndHash(base64: string): Promise<{ size: number; hash: string }> {
  const bytes = Uint8Array.from(atob(base64), (ch) => ch.charCodeAt(0));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes));
  return { size: bytes.length, hash: btoa(String.fromCharCode(...digest)) };
}

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

/** Everything wrong with an ITI-65 Bundle under its option; `patientExists` asks the store. */
export async function provideBundleIssues(bundle: Bundle, patientExists: (id: string) => Promise<boolean>): Promise<MhdIssue[]> {
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
    if (!m || !(await patientExists(m[1]!))) issues.push({ code: "XDSUnknownPatientId", message: `The subject ${ref} is no Patient of this server or the Bundle` });
  }
  return issues;
}

/** Whether the caller can read Patient/`id` in its organization (the store or a pipeline's port). */
export const patientReadable =
  (store: { read(type: string, id: string): Promise<unknown> }) =>
  async (id: string): Promise<boolean> => {
    try {
      await store.read("Patient", id);
      return true;
    } catch {
      return false;
    }
  };

export const provideBundleCheck: BundleCheck = {
  applies: (bundle) => optionOf(bundle) !== undefined,
  async check(bundle, store) {
    const issues = await provideBundleIssues(bundle, patientReadable(store));
    if (issues.length === 0) return undefined;
    return {
      status: 400,
      body: {
        resourceType: "OperationOutcome",
        issue: issues.map((i) => ({
          severity: "error",
          code: i.code === "XDSUnknownPatientId" || i.code === "XDSMissingDocument" ? "not-found" : "invalid",
          details: { coding: [{ system: "urn:oasis:names:tc:ebxml-regrep:ResponseStatusType", code: i.code }], text: i.code },
          diagnostics: i.message,
        })),
      },
    };
  },
};

export const MHD_BUNDLE_CHECKS: readonly BundleCheck[] = [provideBundleCheck];
