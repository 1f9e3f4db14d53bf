// Unit normalisation through UCUM (@lhncbc/ucum-lhc, the NLM's implementation): the only
// hand-written part is how vendors spell units that are not UCUM codes ("lb", "bpm",
// "fraction"); every conversion (lb→kg, kJ→kcal, °F→°C, fraction→%, mmol/L→mg/dL with the
// molecular weight) is the library's.
import { UcumLhcUtils } from "@lhncbc/ucum-lhc";

const ucum = UcumLhcUtils.getInstance();

/** Vendor and human spellings → UCUM codes (lower-cased keys). A UCUM code passes as itself. */
const SPELLINGS: Readonly<Record<string, string>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, string>, {
    bpm: "/min",
    "beats/min": "/min",
    "breaths/min": "/min",
    "{beat}/min": "/min",
    "{beats}/min": "/min",
    lb: "[lb_av]",
    lbs: "[lb_av]",
    pound: "[lb_av]",
    pounds: "[lb_av]",
    "°f": "[degF]",
    f: "[degF]",
    degf: "[degF]",
    fahrenheit: "[degF]",
    "°c": "Cel",
    c: "Cel",
    degc: "Cel",
    celsius: "Cel",
    fraction: "1",
    ratio: "1",
    mmhg: "mm[Hg]",
    steps: "{steps}",
    step: "{steps}",
    count: "{steps}",
    score: "{score}",
    floors: "{floors}",
    minutes: "min",
    minute: "min",
    mins: "min",
    seconds: "s",
    sec: "s",
    hours: "h",
    hr: "h",
    miles: "[mi_i]",
    mi: "[mi_i]",
    "l/min": "L/min",
    l: "L",
    "mg/dl": "mg/dL",
    "mmol/l": "mmol/L",
    kj: "kJ",
    kcal: "kcal",
    cal: "kcal", // vendors' "calories" are dietary kilocalories
    "kg/m²": "kg/m2",
  }),
);

/** The UCUM code for a unit as a source spelled it, or undefined when UCUM does not know it. */
export function ucumCode(unit: string): string | undefined {
  const spelled = SPELLINGS[unit.trim().toLowerCase()] ?? unit.trim();
  return ucum.validateUnitString(spelled).status === "valid" ? spelled : undefined;
}

export type Conversion = { ok: true; value: number } | { ok: false; message: string };

/** `value` in `from` (a UCUM code) expressed in `to`; molar ↔ mass needs the molecular weight. */
export function convert(value: number, from: string, to: string, molecularWeight?: number): Conversion {
  if (from === to) return { ok: true, value };
  const result = ucum.convertUnitTo(from, value, to, molecularWeight ? { molecularWeight } : {});
  if (result.status !== "succeeded" || result.toVal === null || !Number.isFinite(result.toVal)) {
    return { ok: false, message: `cannot convert ${from} to ${to}${result.msg.length ? `: ${result.msg.join("; ")}` : ""}` };
  }
  // UCUM works in doubles: 150 lb is 68.03885550000001 kg. Twelve significant digits keep every real precision.
  return { ok: true, value: Number(result.toVal.toPrecision(12)) };
}
