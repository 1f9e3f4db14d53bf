// NM1 loops (with their N3, N4, DMG, REF) as Patient, Practitioner or Organization
// references: found in the store by identifier when the resolver knows them, else created.

import type { Resource } from "../../../platform/fhir-resource";
import { X12Error } from "../errors";
import type { LoopNode } from "../loops";
import { el, type Segment } from "../model";
import { head, seg1, segs } from "../query";
import { GENDER, SYSTEM } from "./codes";
import type { FhirOutput, Identifier, Match, Ref } from "./context";
import { address, clean, date, personName } from "./values";

const PATIENT_ENTITIES = new Set(["IL", "QC", "03"]);

/** The identifier NM108/NM109 carry, with the system its qualifier implies. */
export function nm1Identifier(out: FhirOutput, nm1: { elements: string[] } | undefined, payerId = ""): Identifier | undefined {
  const q = nm1?.elements[7] ?? "";
  const value = nm1?.elements[8] ?? "";
  if (!value) return undefined;
  const system =
    q === "XX" ? SYSTEM.npi : q === "FI" || q === "EI" || q === "24" ? SYSTEM.ein : q === "MI" ? out.system("member-id", payerId || "unknown-payer") : q === "PI" || q === "PP" ? out.system("payer-id") : out.system("id", q || "none");
  return { system, value };
}

/** The loop, or an X12Error naming it: a mapping cannot make its resources without it. */
export function needLoop(loop: LoopNode | undefined, id: string, what: string): LoopNode {
  if (loop) return loop;
  throw new X12Error("MISSING_SEGMENT", `loop ${id} (${what}) is missing: the FHIR mapping needs it`, { loop: id });
}

export interface PartyOptions {
  /** Payer id, for the system of member ids. */
  payerId?: string;
  /** Force the resource type (a person NM1 of a payer loop is still an Organization...). */
  type?: "Patient" | "Practitioner" | "Organization";
  /** Key of the entry in the Bundle when the party has no identifier. */
  key: string;
  /** Demographics written outside the NM1 loop (the 276 puts DMG on the HL level). */
  dmg?: Segment;
}

/** The resource type an NM1 stands for. */
export function partyType(loop: LoopNode): "Patient" | "Practitioner" | "Organization" {
  const nm1 = head(loop);
  if (PATIENT_ENTITIES.has(el(nm1, 1))) return "Patient";
  return el(nm1, 2) === "1" ? "Practitioner" : "Organization";
}

/** A Practitioner or Organization from an NM1 loop (a person on a patient loop is a Patient: see `person`); the reference to it. */
export async function party(out: FhirOutput, loop: LoopNode, options: PartyOptions): Promise<Ref> {
  const nm1 = head(loop)!;
  const type = options.type ?? partyType(loop);
  if (type === "Patient") return (await person(out, loop, { key: options.key, payerId: options.payerId ?? "", memberId: nm1Identifier(out, nm1, options.payerId)?.value, dmg: options.dmg })).ref;
  const id = nm1Identifier(out, nm1, options.payerId);
  const identifier: Identifier[] = id ? [id] : [];
  const taxId = seg1(loop, "REF", ["EI", "TJ"]);
  if (taxId) identifier.push({ system: SYSTEM.ein, value: el(taxId, 2) });
  const addr = address(seg1(loop, "N3"), seg1(loop, "N4"));
  const make = (): Resource => {
    if (type === "Organization") return clean({ resourceType: "Organization", identifier: identifier.length ? identifier : undefined, active: true, name: el(nm1, 3) || undefined, address: addr ? [addr] : undefined });
    return clean({ resourceType: type, identifier: identifier.length ? identifier : undefined, name: [personName(nm1)], address: addr ? [addr] : undefined });
  };
  const ref = await out.reference(type, id, make, `${options.key}|${el(nm1, 1)}|${el(nm1, 3)}|${el(nm1, 4)}|${el(nm1, 9)}`);
  return withDisplay(ref, nm1);
}

const withDisplay = (ref: Ref, nm1: Segment): Ref => {
  const display = el(nm1, 2) === "1" ? [el(nm1, 4), el(nm1, 3)].filter(Boolean).join(" ") : el(nm1, 3);
  return display ? { ...ref, display } : ref;
};

/** The identifier of a member of a payer's plan (the subscriber's member id). */
export const memberIdentifier = (out: FhirOutput, payerId: string, memberId: string): Identifier => ({ system: out.system("member-id", payerId || "unknown-payer"), value: memberId });

/** A Patient and what tells them apart from the other people on the same member id. */
export interface Person {
  ref: Ref;
  match?: Match;
}

/**
 * A Patient from an NM1 loop (subscriber, dependent, 835 patient or insured). A member id is
 * shared by the subscriber and their dependents, so it never tells a person apart alone: a
 * person is keyed on the payer and member id together with their name (NM103, NM104) and
 * birth date (DMG02, where the loop has one). A subscriber (or a dependent with an id of
 * their own) is matched by that identifier on the Patient; a dependent whose NM1 carries none
 * (or the subscriber's) by the Coverage they are the beneficiary of (`_has:Coverage`).
 */
export async function person(out: FhirOutput, loop: LoopNode, o: { key: string; payerId: string; memberId?: string; dependent?: boolean; dmg?: Segment }): Promise<Person> {
  const nm1 = head(loop)!;
  const nm109 = nm1Identifier(out, nm1, o.payerId);
  const own = o.dependent && nm109?.value === o.memberId ? undefined : nm109;
  const dmg = seg1(loop, "DMG") ?? o.dmg;
  const birthDate = date(el(dmg, 2));
  const params: [string, string | Identifier][] = [];
  if (!own && o.memberId) params.push(["_has:Coverage:beneficiary:identifier", memberIdentifier(out, o.payerId, o.memberId)]);
  if (el(nm1, 3)) params.push(["family:exact", el(nm1, 3)]);
  if (el(nm1, 4)) params.push(["given:exact", el(nm1, 4)]);
  if (birthDate) params.push(["birthdate", birthDate]);
  const match = own || o.memberId ? { identifier: own, params } : undefined;
  const addr = address(seg1(loop, "N3"), seg1(loop, "N4"));
  const make = (): Resource => clean({ resourceType: "Patient", identifier: own ? [own] : undefined, name: [personName(nm1)], address: addr ? [addr] : undefined, birthDate, gender: GENDER[el(dmg, 3)] });
  const ref = await out.reference("Patient", match, make, `${o.key}|${el(nm1, 1)}|${el(nm1, 3)}|${el(nm1, 4)}|${el(nm1, 9)}`);
  return { ref: withDisplay(ref, nm1), match };
}

/** A loop holding just this segment, for NM1s the 835 writes without a loop of their own. */
export const loneLoop = (s: Segment, loop: string): LoopNode => ({ loop, name: "", children: [s] });

/** The N1 loop of an 835 (N1 name, N3/N4, REF) as an Organization. */
export async function n1Party(out: FhirOutput, loop: LoopNode, key: string): Promise<Ref> {
  const n1 = head(loop)!;
  const q = el(n1, 3);
  const value = el(n1, 4);
  const refs = segs(loop, "REF");
  const payerRef = refs.find((r) => el(r, 1) === "2U");
  const id: Identifier | undefined = value ? { system: q === "XX" ? SYSTEM.npi : q === "FI" ? SYSTEM.ein : q === "XV" || q === "PI" ? out.system("payer-id") : out.system("id", q || "none"), value } : payerRef ? { system: out.system("payer-id"), value: el(payerRef, 2) } : undefined;
  const identifier = id ? [id] : [];
  const tin = refs.find((r) => el(r, 1) === "TJ");
  if (tin) identifier.push({ system: SYSTEM.ein, value: el(tin, 2) });
  const addr = address(seg1(loop, "N3"), seg1(loop, "N4"));
  const make = (): Resource => clean({ resourceType: "Organization", identifier: identifier.length ? identifier : undefined, active: true, name: el(n1, 2) || undefined, address: addr ? [addr] : undefined });
  const ref = await out.reference("Organization", id, make, `${key}|${el(n1, 1)}|${el(n1, 2)}`);
  return el(n1, 2) ? { ...ref, display: el(n1, 2) } : ref;
}

/** The beneficiary as coverage search parameters: the stored Patient, or the person's name and birth date through the chain. */
function beneficiaryParams(b: Person): [string, string | Identifier][] {
  if (!b.ref.reference.startsWith("urn:")) return [["beneficiary", b.ref.reference]];
  return (b.match?.params ?? []).filter(([k]) => !k.startsWith("_has")).map(([k, v]) => [`beneficiary:Patient.${k}`, v]);
}

/** A Coverage for a member of a payer: keyed on the member id and its beneficiary (the subscriber's and each dependent's are different Coverages), found or created. */
export async function coverage(
  out: FhirOutput,
  args: { memberId?: string; payerId: string; beneficiary: Person; subscriber?: Ref; payor: Ref; relationship?: string; group?: string; filing?: string; key: string },
): Promise<Ref> {
  const id = args.memberId ? memberIdentifier(out, args.payerId, args.memberId) : undefined;
  const make = (): Resource =>
    clean({
      resourceType: "Coverage",
      identifier: id ? [id] : undefined,
      status: "active",
      type: args.filing ? { coding: [{ system: SYSTEM.claimFilingIndicator, code: args.filing }] } : undefined,
      subscriber: args.subscriber,
      subscriberId: args.memberId,
      beneficiary: args.beneficiary.ref,
      relationship: args.relationship ? { coding: [{ system: SYSTEM.relationship, code: args.relationship }] } : undefined,
      payor: [args.payor],
      class: args.group ? [{ type: { coding: [{ system: SYSTEM.coverageClass, code: "group" }] }, value: args.group }] : undefined,
    });
  const match = id ? { identifier: id, params: beneficiaryParams(args.beneficiary) } : undefined;
  return out.reference("Coverage", match, make, `${args.key}|${args.payerId}|${args.memberId ?? ""}|${args.beneficiary.ref.reference}`);
}
