// What the Health Connect SDK lets a record carry, as the companion app serializes it: the unit
// classes of androidx.health.connect.client.units, each with every accessor it exposes (the app
// may send any of them; the first one present is read, in UCUM so the device core converts), and
// the integer constants a record's fields take, accepted by value or by name (the Jetpack names,
// and the platform SDK's where they differ). Values checked against the SDK's sources.

/** A unit class: its accessors, each with the UCUM unit it reads in, the canonical one first. */
export interface UnitClass {
  readonly name: string;
  readonly accessors: readonly (readonly [accessor: string, ucum: string])[];
}

export const MASS: UnitClass = {
  name: "Mass",
  accessors: [
    ["inKilograms", "kg"],
    ["inGrams", "g"],
    ["inMilligrams", "mg"],
    ["inMicrograms", "ug"],
    ["inPounds", "[lb_av]"],
    ["inOunces", "[oz_av]"],
  ],
};

/** `inCalories` is the small calorie (1 kcal = 1000 of them, 1 cal = 4.184 J in the SDK): UCUM's cal_th. */
export const ENERGY: UnitClass = {
  name: "Energy",
  accessors: [
    ["inKilocalories", "kcal"],
    ["inKilojoules", "kJ"],
    ["inCalories", "cal_th"],
    ["inJoules", "J"],
  ],
};

export const LENGTH: UnitClass = {
  name: "Length",
  accessors: [
    ["inMeters", "m"],
    ["inKilometers", "km"],
    ["inMiles", "[mi_i]"],
    ["inFeet", "[ft_i]"],
    ["inInches", "[in_i]"],
  ],
};

export const BLOOD_GLUCOSE: UnitClass = {
  name: "BloodGlucose",
  accessors: [
    ["inMilligramsPerDeciliter", "mg/dL"],
    ["inMillimolesPerLiter", "mmol/L"],
  ],
};

export const TEMPERATURE: UnitClass = {
  name: "Temperature",
  accessors: [
    ["inCelsius", "Cel"],
    ["inFahrenheit", "[degF]"],
  ],
};

export const PRESSURE: UnitClass = { name: "Pressure", accessors: [["inMillimetersOfMercury", "mm[Hg]"]] };

/** 0–100, not a fraction. */
export const PERCENTAGE: UnitClass = { name: "Percentage", accessors: [["value", "%"]] };

export type FieldProblem = { readonly path: string; readonly message: string };

type Fields = Readonly<Record<string, unknown>>;
const isObject = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v);

/** The value of a unit-class field (`weight: {inPounds: 154}`) in UCUM, or the problem, naming the field. */
export function unitValue(raw: unknown, unit: UnitClass, path: string): { value: number; ucum: string } | { problem: FieldProblem } {
  const names = unit.accessors.map(([a]) => a).join(", ");
  if (!isObject(raw)) return { problem: { path, message: `must be a ${unit.name} with one of ${names}` } };
  for (const [accessor, ucum] of unit.accessors) {
    const value = raw[accessor];
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || !Number.isFinite(value)) return { problem: { path: `${path}.${accessor}`, message: "must be a finite number" } };
    return { value, ucum };
  }
  return { problem: { path, message: `${unit.name} needs one of ${names}` } };
}

/** Integer constants of one field: names to values. */
export type Constants = Readonly<Record<string, number>>;

/** Device.TYPE_* (10 and up need the SDK's FEATURE_EXTENDED_DEVICE_TYPES). */
export const DEVICE_TYPES: Constants = {
  TYPE_UNKNOWN: 0,
  TYPE_WATCH: 1,
  TYPE_PHONE: 2,
  TYPE_SCALE: 3,
  TYPE_RING: 4,
  TYPE_HEAD_MOUNTED: 5,
  TYPE_FITNESS_BAND: 6,
  TYPE_CHEST_STRAP: 7,
  TYPE_SMART_DISPLAY: 8,
  TYPE_CONSUMER_MEDICAL_DEVICE: 9,
  TYPE_GLASSES: 10,
  TYPE_HEARABLE: 11,
  TYPE_FITNESS_MACHINE: 12,
  TYPE_FITNESS_EQUIPMENT: 13,
  TYPE_PORTABLE_COMPUTER: 14,
  TYPE_METER: 15,
};

/** Metadata.RECORDING_METHOD_*. */
export const RECORDING_METHODS: Constants = {
  RECORDING_METHOD_UNKNOWN: 0,
  RECORDING_METHOD_ACTIVELY_RECORDED: 1,
  RECORDING_METHOD_AUTOMATICALLY_RECORDED: 2,
  RECORDING_METHOD_MANUAL_ENTRY: 3,
};

/** SleepSessionRecord.STAGE_TYPE_* (Jetpack), with the platform SDK's names for the same values. */
export const SLEEP_STAGES: Constants = {
  STAGE_TYPE_UNKNOWN: 0,
  STAGE_TYPE_AWAKE: 1,
  STAGE_TYPE_SLEEPING: 2,
  STAGE_TYPE_OUT_OF_BED: 3,
  STAGE_TYPE_AWAKE_OUT_OF_BED: 3,
  STAGE_TYPE_LIGHT: 4,
  STAGE_TYPE_SLEEPING_LIGHT: 4,
  STAGE_TYPE_DEEP: 5,
  STAGE_TYPE_SLEEPING_DEEP: 5,
  STAGE_TYPE_REM: 6,
  STAGE_TYPE_SLEEPING_REM: 6,
  STAGE_TYPE_AWAKE_IN_BED: 7,
};

/**
 * A constant by value (any integer: a newer SDK may add values) or by one of its names; the
 * problem names the field and the names it takes.
 */
export function constantValue(raw: unknown, constants: Constants, path: string): { value: number } | { problem: FieldProblem } {
  if (typeof raw === "number" && Number.isInteger(raw)) return { value: raw };
  if (typeof raw === "string" && Object.hasOwn(constants, raw)) return { value: constants[raw] as number };
  return { problem: { path, message: `must be an integer constant or one of ${Object.keys(constants).join(", ")}` } };
}
