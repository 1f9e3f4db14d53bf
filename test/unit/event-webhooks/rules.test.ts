// The pure rules of customer webhooks: which events an endpoint's subscriptions take, which
// subscriptions are refused, the secret's format and rotation, the fan-out's messages and ids,
// FHIR changes as events, and the disable rule.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES, isEventType } from "../../../src/features/event-webhooks/catalog";
import { messageIdOf, payloadOf, subjectOf } from "../../../src/features/event-webhooks/delivery";
import { fhirChangeEvent } from "../../../src/features/event-webhooks/fhir-events";
import { DISABLE_AFTER_MS, verdict } from "../../../src/features/event-webhooks/observer";
import { fanOut } from "../../../src/features/event-webhooks/publish";
import { newSecret, rotated, validSecrets } from "../../../src/features/event-webhooks/secrets";
import { eventTypeProblems, matches } from "../../../src/features/event-webhooks/subscriptions";

const isResourceType = (name: string) => ["Patient", "Observation", "Encounter"].includes(name);

describe("event catalog", () => {
  it("lists the service's events with their data", () => {
    const types = EVENT_TYPES.map((e) => e.type);
    for (const t of ["device.reading.created", "alert.raised", "alert.resolved", "execution.failed", "execution.completed", "inbound.message.failed", "sync.completed", "webhook.endpoint.disabled", "fhir.{ResourceType}.created"]) expect(types).toContain(t);
    for (const e of EVENT_TYPES) expect(e.data.length).toBeGreaterThan(0);
  });

  it("knows fixed types and FHIR changes of real resource types", () => {
    expect(isEventType("alert.raised", isResourceType)).toBe(true);
    expect(isEventType("fhir.Observation.updated", isResourceType)).toBe(true);
    expect(isEventType("fhir.Nonsense.updated", isResourceType)).toBe(false);
    expect(isEventType("fhir.Patient.touched", isResourceType)).toBe(false);
    expect(isEventType("alert.exploded", isResourceType)).toBe(false);
  });
});

describe("subscriptions", () => {
  it("matches exact types, trailing wildcards and one-segment wildcards", () => {
    expect(matches("*", "alert.raised")).toBe(true);
    expect(matches("alert.*", "alert.raised")).toBe(true);
    expect(matches("alert.*", "alerts.raised")).toBe(false);
    expect(matches("fhir.*", "fhir.Patient.created")).toBe(true);
    expect(matches("fhir.Observation.*", "fhir.Observation.deleted")).toBe(true);
    expect(matches("fhir.Observation.*", "fhir.Patient.deleted")).toBe(false);
    expect(matches("fhir.*.deleted", "fhir.Patient.deleted")).toBe(true);
    expect(matches("fhir.*.deleted", "fhir.Patient.created")).toBe(false);
    expect(matches("device.reading.created", "device.reading.created")).toBe(true);
    expect(matches("device.*", "device")).toBe(false);
  });

  it("refuses unknown types, patterns matching nothing, malformed names and repeats, each at its index", () => {
    expect(eventTypeProblems(["alert.raised", "fhir.*", "fhir.Observation.*", "fhir.*.deleted", "*", "sync.*"], isResourceType)).toEqual([]);
    const problems = eventTypeProblems(["alert.exploded", "fhir.Nonsense.*", "nothing.*", "bad type", "alert.raised", "alert.raised"], isResourceType);
    expect(problems.map((p) => p.path)).toEqual(["event_types[0]", "event_types[1]", "event_types[2]", "event_types[3]", "event_types"]);
  });
});

describe("secrets", () => {
  it("makes Standard Webhooks secrets the reference package accepts", () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const wh = new Webhook(secret);
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(Date.now() / 1000)) };
    const signature = wh.sign("msg_1", new Date(), "{}");
    expect(wh.verify("{}", { ...headers, "webhook-signature": signature })).toEqual({});
  });

  it("keeps the secret before a rotation valid for the overlap, then drops it", () => {
    const t0 = Date.parse("2030-01-01T00:00:00Z");
    const first = [{ secret: "whsec_a", created_at: new Date(t0).toISOString(), expires_at: null }];
    const after = rotated(first, "whsec_b", 24, t0);
    expect(after.map((s) => s.secret)).toEqual(["whsec_b", "whsec_a"]);
    expect(validSecrets(after, t0 + 23 * 3_600_000).map((s) => s.secret)).toEqual(["whsec_b", "whsec_a"]);
    expect(validSecrets(after, t0 + 24 * 3_600_000).map((s) => s.secret)).toEqual(["whsec_b"]);
    // A second rotation inside the overlap never lengthens the oldest one's.
    const again = rotated(after, "whsec_c", 48, t0 + 3_600_000);
    expect(again.map((s) => [s.secret, s.expires_at])).toEqual([
      ["whsec_c", null],
      ["whsec_b", new Date(t0 + 49 * 3_600_000).toISOString()],
      ["whsec_a", new Date(t0 + 24 * 3_600_000).toISOString()],
    ]);
    expect(rotated(after, "whsec_d", 0, t0).map((s) => s.secret)).toEqual(["whsec_d"]);
  });
});

describe("fan-out", () => {
  const event = { type: "alert.raised", id: "alert.raised.a1", occurred_at: "2030-01-01T00:00:00.000Z", data: { alert_id: "a1" } };
  const endpoints = [
    { id: "e1", eventTypes: ["alert.*"], destinationId: "d1" },
    { id: "e2", eventTypes: ["execution.failed"], destinationId: "d2" },
    { id: "e3", eventTypes: ["*"], destinationId: "d3" },
  ];

  it("sends each event to the subscribed endpoints only, one message each, with a stable id per (event, endpoint)", async () => {
    const out = await fanOut([event], endpoints);
    expect([...out.keys()].sort()).toEqual(["d1", "d3"]);
    const [m1] = out.get("d1") ?? [];
    expect(m1?.id).toBe(await messageIdOf("e1", event.id));
    expect(m1?.id).not.toBe(out.get("d3")?.[0]?.id);
    expect(m1?.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(JSON.parse(m1?.body ?? "")).toEqual({ id: event.id, type: "alert.raised", timestamp: event.occurred_at, data: { alert_id: "a1" } });
    expect(m1?.body).toBe(payloadOf(event));
    expect((await fanOut([event], endpoints)).get("d1")?.[0]?.id).toBe(m1?.id);
  });

  it("leaves out the endpoint an event is about", async () => {
    expect([...(await fanOut([event], endpoints, "e3")).keys()]).toEqual(["d1"]);
  });

  it("keys each message by the event's subject, so one alert's or one resource's events keep their order", async () => {
    const acknowledged = { ...event, type: "alert.acknowledged", id: "alert.acknowledged.a1.1" };
    expect(subjectOf(event)).toBe("alert:a1");
    expect(subjectOf(acknowledged)).toBe(subjectOf(event));
    expect((await fanOut([event, acknowledged], endpoints)).get("d1")?.map((m) => m.key)).toEqual(["alert:a1", "alert:a1"]);
    expect(subjectOf(fhirChangeEvent({ action: "create", resourceType: "Patient", id: "p1", versionId: "1" }))).toBe("reference:Patient/p1");
    expect(subjectOf({ type: "execution.failed", id: "x", occurred_at: event.occurred_at, data: { execution_id: "e9", pipeline_id: "p" } })).toBe("execution:e9");
    expect(subjectOf({ type: "sync.completed", id: "s.1", occurred_at: event.occurred_at, data: {} })).toBe("event:s.1");
  });
});

describe("FHIR changes", () => {
  it("map to fhir.<Type>.<action> events whose id is stable per version", () => {
    const e = fhirChangeEvent({ action: "update", resourceType: "Observation", id: "o1", versionId: "3" }, "2030-01-01T00:00:00.000Z");
    expect(e).toEqual({ type: "fhir.Observation.updated", id: "fhir.Observation.o1.3.updated", occurred_at: "2030-01-01T00:00:00.000Z", data: { resource_type: "Observation", id: "o1", version_id: "3", reference: "Observation/o1" } });
    expect(fhirChangeEvent({ action: "delete", resourceType: "Patient", id: "p", versionId: "2" }).type).toBe("fhir.Patient.deleted");
  });
});

describe("the disable rule", () => {
  const attempt = (ok: boolean, status: number | undefined, started_at: string, cls?: string) => ({
    attempt: { message_id: "m", number: 1, started_at, duration_ms: 3, result: { ok, ...(status ? { status } : {}), ...(cls ? { failure: { class: cls as "gone", message: "x" } } : {}) } },
  });
  const t0 = Date.parse("2030-01-01T00:00:00Z");
  const at = (ms: number) => new Date(t0 + ms).toISOString();

  it("disables at once on 410 Gone", () => {
    expect(verdict(attempt(false, 410, at(0), "gone"), null, t0).disable).toBe("gone");
  });

  it("counts failures from the first after a success and disables after the window; a success resets", () => {
    const first = verdict(attempt(false, 500, at(0), "server_error"), null, t0);
    expect(first).toEqual({ failingSince: at(0) });
    expect(verdict(attempt(false, 500, at(DISABLE_AFTER_MS - 1), "server_error"), first.failingSince, t0 + DISABLE_AFTER_MS - 1).disable).toBeUndefined();
    expect(verdict(attempt(false, undefined, at(DISABLE_AFTER_MS), "refused"), first.failingSince, t0 + DISABLE_AFTER_MS).disable).toBe("failing");
    expect(verdict(attempt(true, 200, at(DISABLE_AFTER_MS), undefined), first.failingSince, t0 + DISABLE_AFTER_MS)).toEqual({ failingSince: null });
  });
});
