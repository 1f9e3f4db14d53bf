// A sync log names why a vendor call failed: the host name that did not resolve, the connection
// refused, the timeout, the failed TLS handshake, the vendor's 401 with its answer; never the
// runtime's "internal error".
// An adapter defined here reads its vendor's base URL from the integration (a stand-in on
// loopback, a closed port, a name that cannot resolve) through the real outbound guard.
import { beforeAll, inject, describe, expect, it } from "vitest";
import type { PlatformAdapter } from "../../src/features/devices/platform-adapter";
import { namingFailures } from "../../src/features/devices/vendor-fetch";
import { vendorJson } from "../../src/features/devices/platforms/vendor-http";
import { tcpProbe } from "../../src/platform/outbound/connect";
import { guardedFetch } from "../../src/platform/outbound/fetch";
import { parseOutboundAllow } from "../../src/platform/outbound/policy";
import { closedPort } from "../support/orthanc";
import { useStandInPlatforms } from "../support/service-profile";
import { createTenant, type Tenant } from "../support/tenants";
import { createPatient, linkDevice } from "./support";

const KIND = "test_named_failures";
const adapter: PlatformAdapter = {
  kind: KIND,
  dataTypes: ["heart_rate"],
  maxSyncDays: 30,
  async fetchPage(call, device, range) {
    const body = await vendorJson<{ data: { id: string; ts: string; value: number }[] }>(call, `${call.credentials.extra?.base_url}/users/${device.platformUserId}/${range.dataType}?page=0`);
    return { readings: body.data.map((d) => ({ patientId: device.patientId, deviceId: device.deviceId, metric: "heart_rate", value: d.value, unit: "/min", time: { at: d.ts }, platform: KIND, sourceRecordId: d.id })) };
  },
};
beforeAll(() => useStandInPlatforms(adapter));

interface Log {
  state: string;
  data_types: { data_type: string; state: string; errors: { reason: string }[] }[];
}

async function syncWith(t: Tenant, baseUrl: string, token: string): Promise<Log> {
  const created = await t.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: KIND, name: "Vendor", credentials: { client_id: "c", client_secret: "s", base_url: baseUrl } } });
  if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
  const patient = await createPatient(t);
  const device = await linkDevice(t, patient, { platform: KIND, name: "Watch", platform_user_id: "u1", tokens: { access_token: token } });
  const started = await t.fetch(`/api/v1/devices/${device}/sync`, { method: "POST", json: { days: 1 } });
  const { sync_id } = (await started.json()) as { sync_id: string };
  for (let i = 0; i < 150; i++) {
    const log = (await (await t.fetch(`/api/v1/sync-logs/${sync_id}`)).json()) as Log;
    if (!["queued", "running"].includes(log.state)) return log;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("sync did not finish");
}

describe("sync log errors name their cause", () => {
  it("a vendor host name that does not resolve: DNS failure, at once (not retried), not 'internal error'", async () => {
    const log = await syncWith(await createTenant(), "https://no-such-vendor.invalid", "patient-access-token");
    expect(log.state).toBe("failed");
    const reason = log.data_types[0]?.errors[0]?.reason ?? "";
    expect(reason).toBe("unreachable: GET no-such-vendor.invalid/users/u1/heart_rate: DNS failure: no-such-vendor.invalid did not resolve");
    expect(reason).not.toContain("internal error");
  });

  it("a 401 from the vendor: the status and the vendor's answer", async () => {
    const log = await syncWith(await createTenant(), inject("deviceVendorUrl"), "a-token-the-vendor-refuses");
    expect(log.data_types[0]?.errors[0]?.reason).toBe('unauthorized: GET /users/u1/heart_rate: HTTP 401 {"error":"invalid_token"}');
  });
});

describe("the vendor fetch", () => {
  const policy = parseOutboundAllow("127.0.0.1").policy;
  const named = (fetch: typeof globalThis.fetch, timeoutMs?: number) => namingFailures(fetch, { probe: tcpProbe(policy), ...(timeoutMs ? { timeoutMs } : {}) });
  const failure = async (f: typeof globalThis.fetch, url: string) => {
    const e = await f(url).then(
      () => undefined,
      (err: unknown) => err,
    );
    return e && { kind: (e as { kind?: string }).kind, message: (e as Error).message };
  };

  it("names a refused connection, a timeout, a failed TLS handshake and a DNS failure", async () => {
    const f = named(guardedFetch({ policy }));
    const port = await closedPort();
    expect(await failure(f, `http://127.0.0.1:${port}/v1/data`)).toEqual({ kind: "unavailable", message: `GET 127.0.0.1:${port}/v1/data: connection refused (or closed before an answer) by 127.0.0.1:${port}` });
    // TLS to the plain-HTTP stand-in: the port opens, the handshake fails.
    const vendor = new URL(inject("deviceVendorUrl"));
    expect(await failure(f, `https://127.0.0.1:${vendor.port}/users`)).toEqual({ kind: "unavailable", message: `GET 127.0.0.1:${vendor.port}/users: TLS handshake with 127.0.0.1:${vendor.port} failed` });
    expect(await failure(f, "http://no-such-vendor.invalid/x")).toEqual({ kind: "unreachable", message: "GET no-such-vendor.invalid/x: DNS failure: no-such-vendor.invalid did not resolve" });
    // A vendor that never answers: the call's own time limit.
    const silent: typeof globalThis.fetch = (_input, init) => new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    expect(await failure(named(silent, 50), "https://api.vendor.example/v2/sleep")).toEqual({ kind: "unavailable", message: "GET api.vendor.example/v2/sleep: timeout: api.vendor.example sent no answer within 50 ms" });
  });
});
