// The malformed-input fuzzer (scripts/lib/fuzz.ts) against npm start's runtime, with a fixed seed
// and a bounded count: every operation of the OpenAPI document and FHIR's interactions, with
// wrong types, huge and deeply nested JSON, bad escapes, odd methods and headers, 16 MiB, slow
// and cut-off bodies. No response ≥ 500 but a documented 503, every error in the documented
// shape, /health answering throughout. `npm run fuzz -- --seconds N --seed S` runs it longer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzReport, fuzz } from "../../scripts/lib/fuzz";
import { type FuzzService, startFuzzService } from "../../scripts/lib/fuzz-service";

const SEED = 32;
const REQUESTS = 180;

describe("malformed-input fuzz", () => {
  let service: FuzzService;
  let report: FuzzReport;
  beforeAll(async () => {
    service = await startFuzzService();
    report = await fuzz({ ...service, seed: SEED, requests: REQUESTS, concurrency: 4 });
  }, 150_000);
  afterAll(() => service?.stop());

  it("answers every request below 500 (or a documented 503), in the documented error shapes", () => {
    expect(report.requests).toBe(REQUESTS);
    expect(report.findings.filter((f) => f.kind !== "health")).toEqual([]);
  });

  it("answers /health throughout, without the watchdog having to restart workerd", () => {
    expect(report.healthChecks).toBeGreaterThan(0);
    expect(report.findings.filter((f) => f.kind === "health")).toEqual([]);
    expect(service.restarts()).toBe(0);
  });
});
