// FHIR → HL7 v2 round trip over every sample in test/fixtures/hl7v2 that converts to FHIR:
// sample → convertToFhir (Bundle 1) → convertFromFhir → a message that the service's parser
// and Debian's python3-hl7 both read, value for value → convertToFhir again (Bundle 2). What
// the mappings carry must come back the same: Bundle 2 compared with Bundle 1 field by field,
// less what NOT_CARRIED lists with the reason. python3-hl7 missing fails the test: .ci/run
// installs it (.ci/debian-packages).

import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../../src/features/fhir/port";
import { convertToFhir, isSupportedMessage } from "../../../src/standards/hl7v2/convert/index";
import { convertFromFhir } from "../../../src/standards/hl7v2/from-fhir/index";
import type { Hl7Message } from "../../../src/standards/hl7v2/message";
import { parseMessage } from "../../../src/standards/hl7v2/parse";
import { canon, carried, mshOf, ourTree, reshaped, targetType } from "./from-fhir-support";
import { findPythonHl7, type PythonSegment, readWithPythonHl7 } from "./python-hl7";
import { checkBundle, fixture, fixtureNames } from "./support";

// ------------------------------------------------------------------ the samples

interface Trip {
  name: string;
  target: string;
  original: Hl7Message;
  bundle1: Bundle;
  text: string;
  warnings: string[];
}

const samples = fixtureNames().filter((n) => {
  const m = parseMessage(fixture(n));
  return isSupportedMessage(m.messageType, m.triggerEvent);
});

const trips: Trip[] = samples.map((name) => {
  const original = parseMessage(fixture(name));
  const bundle1 = convertToFhir(original);
  const target = targetType(original, bundle1);
  const { text, warnings } = convertFromFhir(bundle1, { messageType: target, msh: mshOf(original) });
  return { name, target, original, bundle1, text, warnings };
});

let python: string | undefined;
let pythonTrees: PythonSegment[][] = [];
beforeAll(() => {
  python = findPythonHl7();
  if (python) pythonTrees = readWithPythonHl7(python, trips.map((t) => t.text));
}, 120_000);

describe("FHIR → HL7 v2 round trip over the samples", () => {
  it("covers every sample that converts to FHIR, in every family", () => {
    expect(samples.length).toBeGreaterThanOrEqual(100);
    expect(new Set(trips.map((t) => t.original.messageType))).toEqual(new Set(["ADT", "ORU", "ORM", "SIU", "MDM", "DFT"]));
    expect(new Set(trips.map((t) => t.target))).toEqual(new Set(["ADT^A01", "ADT^A03", "ADT^A04", "ADT^A08", "ADT^A40", "ORU^R01", "ORM^O01", "SIU^S12", "MDM^T01", "MDM^T02"]));
  });

  it("Debian's python3-hl7 is there to read the messages (.ci/run installs it)", () => {
    expect(python, "python3-hl7 not found: apt-get install -y python3-hl7 (Debian)").toBeDefined();
  });

  it.each(trips.map((t, i) => [t.name, t.target, i] as const))("%s → %s", (_name, target, i) => {
    const trip = trips[i]!;
    // the service's parser reads it, and python-hl7 reads the same values, field by field
    const ours = parseMessage(trip.text);
    expect(`${ours.messageType}^${ours.triggerEvent}`).toBe(target);
    expect(python, "python3-hl7 not found").toBeDefined();
    expect(canon(pythonTrees[i])).toEqual(canon(ourTree(ours)));
    // what the mappings carry comes back the same
    const bundle2 = convertToFhir(ours);
    expect(checkBundle(bundle2, ours.controlId)).toEqual([]);
    const info = { source: `${trip.original.messageType}^${trip.original.triggerEvent}`, target, version: trip.original.version };
    const [expected, actual] = reshaped(info, trip.bundle1, bundle2);
    expect(carried(actual, info, false)).toEqual(carried(expected, info, true));
  });
});

