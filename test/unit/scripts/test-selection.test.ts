// `npm test -- <path or area>`: which files each lane runs (scripts/lib/test-selection.ts), on this
// repository's own test tree.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { inTarget, selectTests } from "../../../scripts/lib/test-selection";

const ROOT = path.resolve(import.meta.dirname, "../../..");

describe("npm test's selection", () => {
  it("takes an area's folder in every lane and its files by name", () => {
    const devices = selectTests(ROOT, ["devices"]);
    expect(devices.worker.length).toBeGreaterThan(0);
    expect(devices.worker.every((f) => f.startsWith("test/devices/"))).toBe(true);
    expect(devices.service).toEqual(["test/browser/devices.test.ts"]);
    expect(devices.node.every((f) => f.split("/").includes("devices") || /\/devices(-[^/]*)?\.test\.ts$/.test(f))).toBe(true);
  });

  it("takes a path as it is: one file, or everything under a folder, in the lane that runs it", () => {
    expect(selectTests(ROOT, ["test/audit/new-areas-audit.test.ts"])).toEqual({ worker: ["test/audit/new-areas-audit.test.ts"], node: [], service: [] });
    const bridge = selectTests(ROOT, ["bridge/test"]);
    expect(bridge.worker).toEqual([]);
    expect(bridge.node.length).toBeGreaterThan(0);
    expect(bridge.node.every((f) => f.startsWith("bridge/test/"))).toBe(true);
  });

  it("keeps the isolated Worker files in the Worker lane and leaves the runtime check's fixtures out", () => {
    expect(selectTests(ROOT, ["test/platform"]).worker).toContain("test/platform/shards.test.ts");
    expect(selectTests(ROOT, ["fresh-runtime"]).worker).toEqual([]);
    expect(selectTests(ROOT, ["fresh-runtime"]).node).toEqual(["test/unit/suite/fresh-runtime.test.ts"]);
  });

  it("matches a folder segment or a file name, not any substring", () => {
    expect(inTarget(ROOT, "test/device-platforms/oura.test.ts", "devices")).toBe(false);
    expect(inTarget(ROOT, "test/unit/fhir/xml-format.test.ts", "fhir")).toBe(true);
    expect(inTarget(ROOT, "test/unit/fhir/xml-format.test.ts", "xml")).toBe(true);
    expect(inTarget(ROOT, "test/unit/fhir/xml-format.test.ts", "format")).toBe(false);
    expect(selectTests(ROOT, ["no-such-area"])).toEqual({ worker: [], node: [], service: [] });
  });
});
