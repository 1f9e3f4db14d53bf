// MHD's AuditEvents at the Document Recipient and Responder (IHE MHD 4.2 audit profiles):
//   ITI-65 ProvideBundle.Audit.Recipient: Import, action C; the patient and the SubmissionSet;
//   ITI-66/67 Find*.Audit.Responder: Query, action E; the patient asked for and the query;
//   ITI-68 RetrieveDocument.Audit.Responder: Export, action R; the patient and the document.
// A DocumentReference search is an ITI-67; a List search for submissionset/folder an ITI-66;
// a Binary read in its native format an ITI-68; a transaction with an MHD profile an ITI-65.
import type { GuideAudit } from "../../../features/fhir";
import type { Bundle, Resource } from "../../../platform/fhir-resource";
import type { FhirService } from "../../../features/fhir";
import { EVENT_TYPES, type IheAudit, iheAuditEvent, objectEntity, patientEntity, queryEntity } from "../audit-event";
import { isSubmissionSet, optionOf } from "./provide-bundle";
import { isMhdListQuery } from "./query-rules";

const SD = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/";
type Ref = { reference?: string };

/** The stored `Type/id` of a reference to an entry of the transaction (its response's location), or the reference itself. */
function storedReference(bundle: Bundle, response: Resource | undefined, ref: string): string {
  const at = (bundle.entry ?? []).findIndex((e) => e.fullUrl === ref);
  const location = at < 0 ? undefined : ((response as Bundle | undefined)?.entry?.[at]?.response?.location as string | undefined);
  return location ? location.split("/_history")[0]! : ref;
}

/** A string element of an unvalidated resource: the audit also records refused transactions, whose resources may hold anything. */
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function provideBundleAudit(bundle: Bundle, response: Resource | undefined): IheAudit {
  const entries = bundle.entry ?? [];
  const setAt = entries.findIndex((e) => e.resource && isSubmissionSet(e.resource));
  const set = entries[setAt]?.resource;
  const subject = text((set?.subject as Ref | undefined)?.reference) ?? text((entries.find((e) => e.resource?.resourceType === "DocumentReference")?.resource?.subject as Ref | undefined)?.reference);
  const stored = setAt < 0 ? undefined : ((response as Bundle | undefined)?.entry?.[setAt]?.response?.location as string | undefined);
  const first = Array.isArray(set?.identifier) ? (set.identifier[0] as { system?: unknown; value?: unknown } | null) : undefined;
  const identifier = text(first?.value) ? { ...(text(first?.system) ? { system: first!.system as string } : {}), value: first!.value as string } : undefined;
  const submissionSet = stored ? { reference: stored.split("/_history")[0]! } : identifier ? { identifier } : { display: "SubmissionSet not stored" };
  return {
    profile: `${SD}IHE.MHD.ProvideBundle.Audit.Recipient`,
    type: EVENT_TYPES.import,
    action: "C",
    transaction: ["ITI-65", "Provide Document Bundle"],
    entity: [...(subject ? [patientEntity({ reference: storedReference(bundle, response, subject) })] : []), objectEntity(submissionSet, { code: "20", display: "Job" })],
  };
}

/** The patient a Find names: `patient` (a reference or id), `subject`, or `patient.identifier` (system|value). */
function queriedPatient(params: URLSearchParams): Record<string, unknown>[] {
  const ref = params.get("patient") ?? params.get("subject");
  if (ref) return [patientEntity({ reference: ref.includes("/") ? ref : `Patient/${ref}` })];
  const token = params.get("patient.identifier") ?? params.get("subject.identifier") ?? params.get("subject:Patient.identifier");
  if (!token) return [];
  const bar = token.indexOf("|");
  return [patientEntity({ identifier: bar < 0 ? { value: token } : { system: token.slice(0, bar), value: token.slice(bar + 1) } })];
}

function findAudit(type: string, params: URLSearchParams): IheAudit | undefined {
  const find = (transaction: readonly [string, string], profile: string): IheAudit => ({
    profile: `${SD}${profile}`,
    type: EVENT_TYPES.query,
    action: "E",
    transaction,
    entity: [...queriedPatient(params), queryEntity(`${type}?${params}`)],
  });
  if (type === "DocumentReference") return find(["ITI-67", "Find Document References"], "IHE.MHD.FindDocumentReferences.Audit.Responder");
  if (type === "List" && isMhdListQuery(params)) return find(["ITI-66", "Find Document Lists"], "IHE.MHD.FindDocumentLists.Audit.Responder");
  return undefined;
}

/** ITI-68: the document, and its patient: the subject of the DocumentReference whose attachment.url is this Binary. */
async function retrieveAudit(id: string, url: string, store: FhirService): Promise<IheAudit> {
  const [doc] = await store.matches("DocumentReference", `location=${encodeURIComponent(url)}`, 1);
  const subject = doc ? ((await store.hydrate(doc.content)).subject as Ref | undefined)?.reference : undefined;
  return {
    profile: `${SD}IHE.MHD.RetrieveDocument.Audit.Responder`,
    type: EVENT_TYPES.export,
    action: "R",
    transaction: ["ITI-68", "Retrieve Document"],
    entity: [...(subject ? [patientEntity({ reference: subject })] : []), objectEntity({ reference: `Binary/${id}` }, { code: "3", display: "Report" })],
  };
}

export const mhdAudit: GuideAudit = {
  async eventFor(on, store) {
    let audit: IheAudit | undefined;
    if (on.kind === "transaction" && optionOf(on.bundle)) audit = provideBundleAudit(on.bundle, on.response);
    else if (on.kind === "search" && on.type) audit = findAudit(on.type, on.params);
    else if (on.kind === "binary-retrieve") audit = await retrieveAudit(on.id, `${on.baseUrl}/Binary/${on.id}`, store);
    return audit && iheAuditEvent(audit, on);
  },
};
