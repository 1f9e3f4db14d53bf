// Helpers for the X12 ↔ FHIR tests: map a fixture, find resources, follow references.
import { expect } from "vitest";
import type { Bundle, Resource } from "../../../../src/features/fhir/port";
import { validateResource } from "../../../../src/features/fhir/validate";
import type { MapOptions } from "../../../../src/standards/x12/fhir/index";
import { x12ToFhir } from "../../../../src/standards/x12/fhir/index";
import { readX12 } from "../../../../src/standards/x12/read";
import { fixture } from "./support";

// biome-ignore lint/suspicious/noExplicitAny: test helper for reading mapped JSON
export type Json = any;

export async function mapped(name: string, options: MapOptions = {}): Promise<Bundle> {
  const sets = await x12ToFhir(readX12(fixture(name)), options);
  expect(sets).toHaveLength(1);
  return sets[0]!.bundle;
}

export const all = (b: Bundle, type: string): Json[] => (b.entry ?? []).map((e) => e.resource as Json).filter((r) => r.resourceType === type);
export const one = (b: Bundle, type: string): Json => {
  const r = all(b, type);
  expect(r, `one ${type}`).toHaveLength(1);
  return r[0]!;
};

/** The resource a reference points to inside the Bundle. */
export function follow(b: Bundle, ref: { reference?: string } | undefined): Json {
  const hit = (b.entry ?? []).find((e) => e.fullUrl === ref?.reference);
  expect(hit, `reference ${ref?.reference}`).toBeDefined();
  return hit!.resource as Json;
}

/** Every resource of the Bundle passes the R4 structure check. */
export function expectValid(b: Bundle) {
  for (const e of b.entry ?? []) expect(validateResource(e.resource as Resource), `${e.resource?.resourceType}`).toEqual([]);
}

export const coding = (system: string, code: string) => ({ coding: [{ system, code }] });
export const usd = (value: number) => ({ value, currency: "USD" });
