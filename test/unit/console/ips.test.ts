// The console's reading of an IPS document: values with units, dates, a concept's display over a
// machine identifier, and a wearable's run of readings folded into its latest with count and range.
import { describe, expect, it } from "vitest";
import { conceptLabel, type IpsResource, sectionRows, seriesSummary, valueText } from "../../../console/src/patients/ips";

const hr = (id: string, value: number, at: string): IpsResource => ({
  resourceType: "Observation",
  id,
  status: "final",
  code: { coding: [{ system: "http://loinc.org", code: "8867-4", display: "Heart rate" }], text: "heart_rate" },
  effectiveDateTime: at,
  valueQuantity: { value, unit: "/min", code: "/min" },
});

describe("IPS rows", () => {
  it("folds a run of one kind of measurement into the latest value, with count, span and range", () => {
    const resources: IpsResource[] = [
      hr("a", 64, "2026-12-01T10:00:00Z"),
      hr("b", 91, "2026-12-03T10:00:00Z"),
      hr("c", 58, "2026-12-02T10:00:00Z"),
      {
        resourceType: "Observation",
        id: "bp",
        status: "final",
        code: { coding: [{ system: "http://loinc.org", code: "85354-9", display: "Blood pressure panel" }] },
        effectiveDateTime: "2026-12-03",
        component: [
          { code: { coding: [{ code: "8480-6", display: "Systolic blood pressure" }] }, valueQuantity: { value: 128, unit: "mmHg" } },
          { code: { coding: [{ code: "8462-4", display: "Diastolic blood pressure" }] }, valueQuantity: { value: 82, unit: "mmHg" } },
        ],
      },
    ];
    const byRef = new Map(resources.map((r) => [`Observation/${r.id}`, r]));
    const rows = sectionRows({ title: "Vital Signs", entry: resources.map((r) => ({ reference: `Observation/${r.id}` })) }, (ref) => byRef.get((ref as { reference?: string } | undefined)?.reference ?? ""));
    expect(rows.map((r) => [r.item, r.value, r.status, r.date])).toEqual([
      ["Heart rate", "91 /min", "final", "2026-12-03T10:00:00Z"],
      ["Blood pressure panel", "Systolic blood pressure 128 mmHg, Diastolic blood pressure 82 mmHg", "final", "2026-12-03"],
    ]);
    expect(rows[0]!.series!.map((s) => s.value)).toEqual(["91 /min", "58 /min", "64 /min"]);
    expect(seriesSummary(rows[0]!)).toMatch(/^3 readings, .+ to .+, ranging 58 to 91 \/min$/);
    expect(rows[1]!.series).toBeUndefined();
  });

  it("names a medication through its reference and keeps a missing entry visible", () => {
    const med: IpsResource = { resourceType: "Medication", id: "m", code: { text: "Amlodipine 5 MG Oral Tablet" } };
    const statement: IpsResource = { resourceType: "MedicationStatement", id: "s", status: "active", medicationReference: { reference: "urn:uuid:m" }, effectiveDateTime: "2020-02-02" };
    const known = new Map<string, IpsResource>([["urn:uuid:m", med], ["urn:uuid:s", statement]]);
    const rows = sectionRows({ entry: [{ reference: "urn:uuid:s" }, { reference: "urn:uuid:gone" }] }, (ref) => known.get((ref as { reference?: string } | undefined)?.reference ?? ""));
    expect(rows.map((r) => [r.item, r.status, r.date])).toEqual([
      ["Amlodipine 5 MG Oral Tablet", "active", "2020-02-02"],
      ["urn:uuid:gone", "", undefined],
    ]);
  });

  it("says values and concepts in words", () => {
    expect(conceptLabel({ text: "Penicillin allergy", coding: [{ display: "Allergy to penicillin" }] })).toBe("Penicillin allergy");
    expect(conceptLabel({ coding: [{ code: "X1" }] })).toBe("X1");
    expect(valueText({ valueCodeableConcept: { coding: [{ display: "Ex-smoker" }] } })).toBe("Ex-smoker");
    expect(valueText({ dataAbsentReason: { coding: [{ display: "Asked but declined" }] } })).toBe("no value (Asked but declined)");
    expect(valueText({ valueQuantity: { value: 5.4321, unit: "mmol/L" } })).toBe("5.43 mmol/L");
  });
});
