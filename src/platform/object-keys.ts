// Property names that lead from a plain object to a shared prototype. A path taken from user
// input (a JSON Pointer, a dotted field name, a port name) must never walk or write through
// one of them: `obj.__proto__.x = …` or `obj.constructor.prototype.x = …` changes every object
// in the isolate, i.e. every organization served by it (#20).
const PROTOTYPE_KEYS = new Set(["__proto__", "prototype", "constructor"]);

export function isPrototypeKey(key: string): boolean {
  return PROTOTYPE_KEYS.has(key);
}

/** The value of an own property of a plain object or an array; inherited members never count. */
export function ownProperty(value: unknown, key: string): unknown {
  if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
  return (value as Record<string, unknown>)[key];
}

/**
 * A lookup table keyed by outside input (a type, a parameter name, a code from a message):
 * it has no prototype, so `toString` or `constructor` find nothing instead of an Object member.
 */
export function lookupTable<T>(entries: Readonly<Record<string, T>>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}

/** A two-level lookup table (e.g. type → element → definition), both levels without a prototype. */
export function lookupTables<T>(entries: Readonly<Record<string, Readonly<Record<string, T>>>>): Readonly<Record<string, Readonly<Record<string, T>>>> {
  return lookupTable(Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, lookupTable(v)])));
}
