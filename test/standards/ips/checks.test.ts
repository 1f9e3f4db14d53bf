// The IPS document checks (FHIRPath invariants and targeted Bundle/Composition rules) on the
// five official IPS example Bundles (npm hl7.fhir.uv.ips 2.0.0), and each rule caught once.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { checkIpsDocument } from "../../../src/standards/ips/checks";
import example01 from "../../fixtures/ips/Bundle-IPS-examples-Bundle-01.json";
import withImmunization from "../../fixtures/ips/Bundle-IPS-examples-Bundle-with-immunization.json";
import allSections from "../../fixtures/ips/Bundle-bundle-ips-all-sections.json";
import minimal from "../../fixtures/ips/Bundle-bundle-minimal.json";
import noInfo from "../../fixtures/ips/Bundle-bundle-no-info-required-sections.json";

const EXAMPLES: Record<string, Bundle> = {
  "IPS-examples-Bundle-01": example01 as unknown as Bundle,
  "IPS-examples-Bundle-with-immunization": withImmunization as unknown as Bundle,
  "bundle-ips-all-sections": allSections as unknown as Bundle,
  "bundle-minimal": minimal as unknown as Bundle,
  "bundle-no-info-required-sections": noInfo as unknown as Bundle,
};

const copy = (b: Bundle): Bundle => structuredClone(b);
const composition = (b: Bundle) => b.entry![0]!.resource as Resource & { section: { code: { coding: { code: string }[] }; entry?: unknown[]; emptyReason?: unknown; text?: unknown }[] };
const rules = (b: Bundle) => checkIpsDocument(b).map((i) => i.rule);

describe("IPS document checks", () => {
  it.each(Object.keys(EXAMPLES))("pass on the official example %s", (name) => {
    expect(checkIpsDocument(EXAMPLES[name]!)).toEqual([]);
  });

  it("bdl-ips-1: a second Composition", () => {
    const b = copy(EXAMPLES["bundle-minimal"]!);
    b.entry!.push({ fullUrl: "urn:uuid:00000000-0000-4000-8000-000000000001", resource: structuredClone(b.entry![0]!.resource!) });
    expect(rules(b)).toContain("bdl-ips-1");
  });

  it("the Composition must come first, the Patient be present, every entry have a fullUrl and no request", () => {
    const b = copy(EXAMPLES["bundle-minimal"]!);
    b.entry!.reverse();
    expect(rules(b)).toEqual(expect.arrayContaining(["bdl-ips-1", "Bundle.entry:composition"]));
    const c = copy(EXAMPLES["bundle-minimal"]!);
    c.entry = c.entry!.filter((e) => e.resource?.resourceType !== "Patient");
    expect(rules(c)).toEqual(expect.arrayContaining(["Bundle.entry:patient", "Composition.subject"]));
    const d = copy(EXAMPLES["bundle-minimal"]!);
    delete d.entry![2]!.fullUrl;
    d.entry![1]!.request = { method: "POST", url: "Patient" };
    expect(rules(d)).toEqual(expect.arrayContaining(["Bundle.entry.fullUrl", "Bundle.entry.request"]));
  });

  it("ips-comp-1: a required section without entries or emptyReason; a missing required section", () => {
    const b = copy(EXAMPLES["bundle-minimal"]!);
    const problems = composition(b).section.find((s) => s.code.coding[0]!.code === "11450-4")!;
    delete problems.entry;
    delete problems.emptyReason;
    expect(rules(b)).toContain("ips-comp-1");
    const c = copy(EXAMPLES["bundle-minimal"]!);
    composition(c).section = composition(c).section.filter((s) => s.code.coding[0]!.code !== "48765-2");
    expect(rules(c)).toContain("section:48765-2");
  });

  it("Composition type, section narrative, ips-pat-1", () => {
    const b = copy(EXAMPLES["bundle-minimal"]!);
    (composition(b) as Record<string, unknown>).type = { coding: [{ system: "http://loinc.org", code: "34133-9" }] };
    delete composition(b).section[0]!.text;
    const patient = b.entry!.find((e) => e.resource?.resourceType === "Patient")!.resource!;
    patient.name = [{ use: "official" }];
    expect(rules(b)).toEqual(expect.arrayContaining(["Composition.type", "Composition.section.title/code/text", "ips-pat-1"]));
  });

  it("ips-1, ips-2, ips-3 on the Results section's Observations", () => {
    const b = copy(EXAMPLES["bundle-ips-all-sections"]!);
    const results = composition(b).section.find((s) => s.code.coding[0]!.code === "30954-2")! as { entry: { reference: string }[] };
    const obsEntries = results.entry.map((r) => b.entry!.find((e) => e.fullUrl!.endsWith(`/${r.reference}`))!.resource!).filter((r) => r.resourceType === "Observation");
    const [first, second, third] = obsEntries as Record<string, unknown>[];
    first!.effectiveDateTime = "2020";
    for (const k of Object.keys(second!)) if (k.startsWith("value") || k === "hasMember" || k === "component" || k === "dataAbsentReason") delete second![k];
    third!.component = [{ code: { text: "x" } }];
    expect(rules(b)).toEqual(expect.arrayContaining(["ips-1", "ips-2", "ips-3"]));
  });
});
