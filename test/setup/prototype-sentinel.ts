// Every worker test ends with the isolate's shared prototypes as they began: a request that
// writes through `__proto__` or `constructor.prototype` changes them for every organization
// the isolate serves (#20), so any test that manages to do so fails here, whatever it asserted.
import { afterEach } from "vitest";

const watched: [string, object][] = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["Function.prototype", Function.prototype],
  ["String.prototype", String.prototype],
];
const before = new Map(watched.map(([name, proto]) => [name, Reflect.ownKeys(proto).map(String).sort().join(",")]));

afterEach(() => {
  for (const [name, proto] of watched) {
    const now = Reflect.ownKeys(proto).map(String).sort().join(",");
    if (now !== before.get(name)) throw new Error(`${name} was changed by this test: ${now}`);
  }
});
