// The consent decision table of docs/consent.md, case by case.
import { describe, expect, it } from "vitest";
import { type ConsentRequest, decide } from "../../../src/features/consent/decide";
import type { Resource } from "../../../src/features/fhir/port";

const ACT = "http://terminology.hl7.org/CodeSystem/v3-ActReason";
const action = (code: string) => ({ coding: [{ system: "http://terminology.hl7.org/CodeSystem/consentaction", code }] });

function consent(id: string, provision: Record<string, unknown>, extra: Record<string, unknown> = {}): Resource {
  return {
    resourceType: "Consent",
    id,
    status: "active",
    scope: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/consentscope", code: "patient-privacy" }] },
    category: [{ coding: [{ system: "http://loinc.org", code: "59284-0" }] }],
    patient: { reference: "Patient/p1" },
    dateTime: "2024-01-01",
    provision,
    ...extra,
  };
}

const base: ConsentRequest = { patient: "p1", actors: ["Organization/hie"], action: "disclose", purposes: [{ system: ACT, code: "TREAT" }], data: { resourceTypes: ["Observation"] }, time: "2025-06-01T00:00:00Z" };

describe("consent decision table", () => {
  it("1. a matching permit permits", () => {
    const d = decide(base, [consent("c1", { type: "permit" })], "opt-in");
    expect(d).toMatchObject({ decision: "permit", basis: "consent", consent: "Consent/c1", provision: "provision" });
  });

  it("2. a matching deny denies", () => {
    const d = decide(base, [consent("c1", { type: "deny" })], "opt-out");
    expect(d).toMatchObject({ decision: "deny", basis: "consent", consent: "Consent/c1", provision: "provision" });
  });

  it("3. a nested deny inside a permit wins where it matches, the permit elsewhere", () => {
    const c = consent("c1", { type: "permit", provision: [{ type: "deny", class: [{ system: "http://hl7.org/fhir/resource-types", code: "Observation" }] }] });
    expect(decide(base, [c], "opt-in")).toMatchObject({ decision: "deny", provision: "provision.provision[0]" });
    expect(decide({ ...base, data: { resourceTypes: ["Condition"] } }, [c], "opt-in")).toMatchObject({ decision: "permit", provision: "provision" });
  });

  it("4. the most specific provision wins: a permit nested in a deny nested in a permit", () => {
    const c = consent("c1", {
      type: "permit",
      provision: [{ type: "deny", action: [action("disclose")], provision: [{ type: "permit", actor: [{ reference: { reference: "Organization/hie" } }] }] }],
    });
    expect(decide(base, [c], "opt-in")).toMatchObject({ decision: "permit", provision: "provision.provision[0].provision[0]" });
    expect(decide({ ...base, actors: ["Organization/other"] }, [c], "opt-in")).toMatchObject({ decision: "deny", provision: "provision.provision[0]" });
  });

  it("5. siblings of equal depth: deny overrides permit", () => {
    const c = consent("c1", { type: "permit", provision: [{ type: "permit", purpose: [{ system: ACT, code: "TREAT" }] }, { type: "deny", action: [action("disclose")] }] });
    expect(decide(base, [c], "opt-out")).toMatchObject({ decision: "deny", provision: "provision.provision[1]" });
  });

  it("6. an expired consent (provision period) does not apply: default decides", () => {
    const c = consent("c1", { type: "permit", period: { start: "2020-01-01", end: "2024-12-31" } });
    expect(decide(base, [c], "opt-in")).toMatchObject({ decision: "deny", basis: "default" });
    expect(decide({ ...base, time: "2024-12-31T23:00:00Z" }, [c], "opt-in")).toMatchObject({ decision: "permit", basis: "consent" });
  });

  it("7. a consent dated after the action does not apply yet", () => {
    expect(decide(base, [consent("c1", { type: "permit" }, { dateTime: "2026-01-01" })], "opt-in")).toMatchObject({ decision: "deny", basis: "default" });
  });

  it("8. purpose mismatch: the provision does not apply", () => {
    const c = consent("c1", { type: "permit", purpose: [{ system: ACT, code: "HRESCH" }] });
    const d = decide(base, [c], "opt-in");
    expect(d).toMatchObject({ decision: "deny", basis: "default" });
    expect(d.reason).toContain("purpose");
    const nested = consent("c2", { type: "permit", provision: [{ type: "deny", purpose: [{ system: ACT, code: "HRESCH" }] }] });
    expect(decide(base, [nested], "opt-in")).toMatchObject({ decision: "permit", provision: "provision" });
  });

  it("9. actor mismatch: the provision does not apply", () => {
    const c = consent("c1", { type: "deny", provision: [{ type: "permit", actor: [{ reference: { reference: "Organization/gp" } }] }] });
    expect(decide(base, [c], "opt-out")).toMatchObject({ decision: "deny", provision: "provision" });
    expect(decide({ ...base, actors: ["Organization/gp"] }, [c], "opt-out")).toMatchObject({ decision: "permit", provision: "provision.provision[0]" });
  });

  it("10. security label: a deny of restricted (R) data applies only to data carrying the label", () => {
    const R = { system: "http://terminology.hl7.org/CodeSystem/v3-Confidentiality", code: "R" };
    const c = consent("c1", { type: "permit", provision: [{ type: "deny", securityLabel: [R] }] });
    expect(decide({ ...base, data: { securityLabels: [R] } }, [c], "opt-in")).toMatchObject({ decision: "deny", provision: "provision.provision[0]" });
    expect(decide({ ...base, data: { securityLabels: [{ ...R, code: "N" }] } }, [c], "opt-in")).toMatchObject({ decision: "permit" });
  });

  it("11. no consent: opt-in denies, opt-out permits", () => {
    expect(decide(base, [], "opt-in")).toMatchObject({ decision: "deny", basis: "default", applied: [] });
    expect(decide(base, [], "opt-out")).toMatchObject({ decision: "permit", basis: "default" });
  });

  it("12. inactive, other patients' and non-Consent resources never count", () => {
    const others = [consent("c1", { type: "permit" }, { status: "inactive" }), consent("c2", { type: "permit" }, { patient: { reference: "Patient/p2" } }), { resourceType: "Observation", id: "o" }];
    expect(decide(base, others, "opt-in")).toMatchObject({ decision: "deny", basis: "default" });
  });

  it("13. across consents a deny overrides a permit", () => {
    const d = decide(base, [consent("c1", { type: "permit" }), consent("c2", { type: "deny", action: [action("disclose")] })], "opt-out");
    expect(d).toMatchObject({ decision: "deny", consent: "Consent/c2" });
    expect(d.applied).toHaveLength(2);
  });

  it("14. action, code and data reference conditions", () => {
    const c = consent("c1", {
      type: "deny",
      provision: [
        { type: "permit", action: [action("access")] },
        { type: "permit", code: [{ coding: [{ system: "http://loinc.org", code: "8867-4" }] }], data: [{ meaning: "instance", reference: { reference: "Observation/o1" } }] },
      ],
    });
    expect(decide({ ...base, action: "access" }, [c], "opt-in")).toMatchObject({ decision: "permit", provision: "provision.provision[0]" });
    expect(decide(base, [c], "opt-in")).toMatchObject({ decision: "deny", provision: "provision" });
    const data = { codes: [{ system: "http://loinc.org", code: "8867-4" }], references: ["Observation/o1"] };
    expect(decide({ ...base, data }, [c], "opt-in")).toMatchObject({ decision: "permit", provision: "provision.provision[1]" });
    expect(decide({ ...base, data: { ...data, references: ["Observation/o2"] } }, [c], "opt-in")).toMatchObject({ decision: "deny" });
  });

  it("15. no root type: the policyRule decides (OPTOUT denies), else permit", () => {
    const optout = consent("c1", { purpose: [{ system: ACT, code: "TREAT" }] }, { policyRule: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v3-ActCode", code: "OPTOUT" }] } });
    expect(decide(base, [optout], "opt-out")).toMatchObject({ decision: "deny", basis: "consent" });
    expect(decide(base, [consent("c2", {})], "opt-in")).toMatchObject({ decision: "permit", basis: "consent" });
  });

  it("16. a nested provision without a type takes its parent's", () => {
    const c = consent("c1", { type: "deny", provision: [{ action: [action("disclose")] }] });
    expect(decide(base, [c], "opt-out")).toMatchObject({ decision: "deny", provision: "provision.provision[0]" });
  });
});
