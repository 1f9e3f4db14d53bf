// The IPS document rules we can check without the Java validator (reference: fhir.md 5.3):
// the profiles' invariants (bdl-ips-1, ips-comp-1 on the required sections, ips-pat-1,
// ips-1/2/3 on results) as FHIRPath evaluated by the store's engine (@medplum/core), and
// the Bundle and Composition constraints they state as cardinalities, as targeted checks.
import { evalFhirPath } from "@medplum/core";
import type { Bundle, Resource } from "../../platform/fhir-resource";
import { REQUIRED_SECTION_CODES } from "./sections";

export interface IpsIssue {
  /** The invariant key (bdl-ips-1, ips-comp-1...) or the element the rule constrains. */
  rule: string;
  message: string;
  /** Where: "Bundle", "Composition", a section code, or Type/id. */
  location: string;
}

interface Rule {
  rule: string;
  expression: string;
  message: string;
}

const holds = (expression: string, input: unknown) => evalFhirPath(expression, input as Resource)[0] === true;

const BUNDLE_RULES: Rule[] = [
  { rule: "bdl-ips-1", expression: "entry.tail().where(resource is Composition).empty()", message: "Only the first entry may be a Composition" },
  { rule: "Bundle.type", expression: "type = 'document'", message: "The Bundle must be a document" },
  { rule: "Bundle.identifier", expression: "identifier.exists()", message: "The Bundle needs an identifier" },
  { rule: "Bundle.timestamp", expression: "timestamp.exists()", message: "The Bundle needs a timestamp" },
  { rule: "Bundle.entry:composition", expression: "entry.first().resource is Composition", message: "The first entry must be the Composition" },
  { rule: "Bundle.entry:patient", expression: "entry.where(resource is Patient).exists()", message: "The Bundle must hold the Patient" },
  { rule: "Bundle.entry.fullUrl", expression: "entry.all(fullUrl.exists())", message: "Every entry needs a fullUrl" },
  {
    rule: "Bundle.entry.request",
    expression: "entry.all(request.empty() and response.empty() and search.empty())",
    message: "Document entries carry no request, response or search",
  },
];

const COMPOSITION_RULES: Rule[] = [
  {
    rule: "Composition.type",
    expression: "type.coding.where(system = 'http://loinc.org' and code = '60591-5').exists()",
    message: "The Composition type must be LOINC 60591-5",
  },
  { rule: "Composition.subject", expression: "subject.reference.exists()", message: "The Composition needs subject.reference" },
  { rule: "Composition.section", expression: "section.exists()", message: "The Composition needs sections" },
  {
    rule: "Composition.section.title/code/text",
    expression: "section.all(title.exists() and code.exists() and text.exists())",
    message: "Every section needs a title, a code and a narrative",
  },
];

const sectionWith = (code: string) => `section.where(code.coding.where(system = 'http://loinc.org' and code = '${code}').exists())`;

/** ips-comp-1 and presence, for Problems, Allergies and Medications. */
const REQUIRED_SECTION_RULES: Rule[] = REQUIRED_SECTION_CODES.flatMap((code) => [
  { rule: `section:${code}`, expression: `${sectionWith(code)}.exists()`, message: `The required section ${code} is missing` },
  { rule: "ips-comp-1", expression: `${sectionWith(code)}.all(entry.reference.exists() or emptyReason.exists())`, message: `Section ${code} needs entries or an emptyReason` },
]);

const PATIENT_RULE: Rule = { rule: "ips-pat-1", expression: "name.all(family.exists() or given.exists() or text.exists())", message: "A Patient name needs a family, a given or a text" };

/** The laboratory results profile's invariants, for Observations the Results section lists. */
const RESULT_RULES: Rule[] = [
  {
    rule: "ips-1",
    expression: "effective.ofType(dateTime).empty() or (effective as dateTime).toString().length() >= 8",
    message: "A result's effectiveDateTime needs at least day precision",
  },
  { rule: "ips-2", expression: "value.exists() or hasMember.exists() or component.exists() or dataAbsentReason.exists()", message: "A result needs a value, members, components or a dataAbsentReason" },
  {
    rule: "ips-3",
    expression: "component.exists() implies (component.value.exists() or component.dataAbsentReason.exists())",
    message: "A result's components need values or a dataAbsentReason",
  },
];

const failing = (rules: Rule[], input: unknown, location: string): IpsIssue[] =>
  rules.filter((r) => !holds(r.expression, input)).map((r) => ({ rule: r.rule, message: r.message, location }));

const RESULTS_CODE = "30954-2";

/** Every violation of the checked IPS rules in `bundle` (empty: the document passes). */
export function checkIpsDocument(bundle: Bundle): IpsIssue[] {
  const issues = failing(BUNDLE_RULES, bundle, "Bundle");
  const entries = bundle.entry ?? [];
  const composition = entries[0]?.resource;
  if (composition?.resourceType !== "Composition") return issues;
  issues.push(...failing([...COMPOSITION_RULES, ...REQUIRED_SECTION_RULES], composition, "Composition"));

  // A relative "Type/id" resolves against RESTful fullUrls (".../Type/id"), an absolute one or a urn exactly.
  const byUrl = new Map(entries.map((e) => [e.fullUrl, e.resource]));
  const resolve = (reference: string | undefined) =>
    reference ? (byUrl.get(reference) ?? (/^[A-Z][A-Za-z]+\/[^/]+$/.test(reference) ? entries.find((e) => e.fullUrl?.endsWith(`/${reference}`))?.resource : undefined)) : undefined;
  const subject = resolve((composition.subject as { reference?: string } | undefined)?.reference);
  if (subject?.resourceType !== "Patient") issues.push({ rule: "Composition.subject", message: "The subject does not resolve to a Patient in the Bundle", location: "Composition" });
  for (const e of entries) if (e.resource?.resourceType === "Patient") issues.push(...failing([PATIENT_RULE], e.resource, `Patient/${e.resource.id}`));

  // Section entries resolve inside the document; the Results section's Observations meet the results invariants.
  type Section = { code?: { coding?: { code?: string }[] }; entry?: { reference?: string }[] };
  for (const section of (composition.section as Section[] | undefined) ?? []) {
    const code = section.code?.coding?.[0]?.code ?? "?";
    for (const ref of section.entry ?? []) {
      const target = resolve(ref.reference);
      if (!target) issues.push({ rule: "Composition.section.entry", message: `${ref.reference} does not resolve inside the document`, location: code });
      else if (code === RESULTS_CODE && target.resourceType === "Observation") issues.push(...failing(RESULT_RULES, target, `Observation/${target.id}`));
    }
  }
  return issues;
}
