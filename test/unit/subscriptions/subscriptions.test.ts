// The subscriptions' plain modules: reading a Subscription (R4 criteria, Backport topic and its
// extensions), matching changes, the notification Bundles and the status rules.
import { describe, expect, it } from "vitest";
import type { FhirChange } from "../../../src/features/fhir";
import { IG } from "../../../src/features/subscriptions/ig";
import { notificationBundle } from "../../../src/features/subscriptions/notification";
import { matchesChange } from "../../../src/features/subscriptions/match";
import { ERROR_STREAK, statusAfter } from "../../../src/features/subscriptions/status";
import { parseSubscription } from "../../../src/features/subscriptions/subscription";
import { TOPIC_BASE } from "../../../src/features/subscriptions/topics";

const heartRate = { resourceType: "Observation", id: "o1", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] }, subject: { reference: "Patient/p1" }, meta: { versionId: "1" } };
const change = (resource: Record<string, unknown>, action: FhirChange["action"] = "create", previous?: Record<string, unknown>): FhirChange => ({
  action,
  resourceType: resource.resourceType as string,
  id: resource.id as string,
  versionId: "1",
  resource: resource as FhirChange["resource"],
  ...(previous ? { previous: previous as FhirChange["resource"] } : {}),
  lastUpdated: "2026-01-01T00:00:00Z",
});

const r4 = (criteria: string, channel: Record<string, unknown> = { type: "rest-hook", endpoint: "https://example.org/hook" }) => ({ resourceType: "Subscription", id: "s1", status: "requested", reason: "test", criteria, channel });
const topic = (name: string, filters: string[] = [], channel: Record<string, unknown> = {}) => ({
  resourceType: "Subscription",
  id: "s2",
  status: "requested",
  reason: "test",
  criteria: `${TOPIC_BASE}/${name}`,
  _criteria: { extension: filters.map((valueString) => ({ url: IG.filterCriteria, valueString })) },
  channel: {
    type: "rest-hook",
    endpoint: "https://example.org/hook",
    payload: "application/fhir+json",
    _payload: { extension: [{ url: IG.payloadContent, valueCode: "id-only" }] },
    extension: [
      { url: IG.heartbeatPeriod, valueUnsignedInt: 60 },
      { url: IG.maxCount, valuePositiveInt: 5 },
    ],
    ...channel,
  },
});

describe("reading a Subscription", () => {
  it("reads an R4 criteria subscription with headers; no payload is an empty POST", () => {
    const parsed = parseSubscription({ ...r4("Observation?code=http://loinc.org|8867-4"), channel: { type: "rest-hook", endpoint: "https://example.org/hook", header: ["Authorization: Bearer abc", "X-Tenant: t1"] } });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.spec).toMatchObject({ kind: "criteria", channel: "rest-hook", headers: { Authorization: "Bearer abc", "X-Tenant": "t1" }, payload: "empty", emptyPost: true });
    expect(parsed.spec.criteria?.resourceType).toBe("Observation");
  });

  it("reads a topic subscription's filters, payload content, heartbeat and max count", () => {
    const parsed = parseSubscription(topic("resource-created", ["Observation?code=8867-4"]));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.spec).toMatchObject({ kind: "topic", payload: "id-only", emptyPost: false, heartbeatSeconds: 60, maxCount: 5 });
    expect(parsed.spec.filters.map((f) => f.text)).toEqual(["Observation?code=8867-4"]);
  });

  it("refuses what it cannot serve, saying why", () => {
    const issues = (r: Record<string, unknown>) => {
      const p = parseSubscription(r as never);
      return p.ok ? [] : p.issues;
    };
    expect(issues(r4("Observation?nonsense=1"))[0]).toMatch(/Observation has no search parameter nonsense/);
    expect(issues(r4("Observation?value-quantity=5"))[0]).toMatch(/quantity parameter/);
    expect(issues(r4("Observation?subject.name=x"))[0]).toMatch(/chained/);
    expect(issues(r4("Nope?x=1"))[0]).toMatch(/not a resource type/);
    expect(issues(r4("http://example.org/SubscriptionTopic/unknown"))[0]).toMatch(/not a topic this server declares/);
    expect(issues(r4("Observation?code=1", { type: "email", endpoint: "mailto:a@b" }))[0]).toMatch(/email is not served/);
    expect(issues(r4("Observation?code=1", { type: "rest-hook" }))[0]).toMatch(/needs channel.endpoint/);
    expect(issues(topic("device-reading", ["Patient?name=x"]))[0]).toMatch(/focus is Observation/);
  });
});

describe("matching changes", () => {
  const spec = (r: Record<string, unknown>) => {
    const p = parseSubscription(r as never);
    if (!p.ok) throw new Error(p.issues.join("; "));
    return p.spec;
  };

  it("matches R4 criteria with @medplum/core's matcher", () => {
    expect(matchesChange(spec(r4("Observation?code=http://loinc.org|8867-4")), change(heartRate))).toBe(true);
    expect(matchesChange(spec(r4("Observation?code=1234-5")), change(heartRate))).toBe(false);
    expect(matchesChange(spec(r4("Observation?subject=Patient/p1")), change(heartRate))).toBe(true);
    expect(matchesChange(spec(r4("Patient?name=x")), change(heartRate))).toBe(false);
  });

  it("triggers topics on their changes and ANDs their filters on the focus", () => {
    expect(matchesChange(spec(topic("resource-created", ["Observation?code=8867-4"])), change(heartRate))).toBe(true);
    expect(matchesChange(spec(topic("resource-created", ["Observation?code=8867-4"])), change(heartRate, "update", heartRate))).toBe(false);
    expect(matchesChange(spec(topic("resource-created", ["Observation?code=8867-4", "Observation?subject=Patient/p2"])), change(heartRate))).toBe(false);
    // A filter of another type restricts the topic to that type.
    expect(matchesChange(spec(topic("resource-created", ["Patient?gender=female"])), change(heartRate))).toBe(false);
    expect(matchesChange(spec(topic("device-reading")), change(heartRate))).toBe(false);
    expect(matchesChange(spec(topic("device-reading")), change({ ...heartRate, device: { reference: "Device/d1" } }))).toBe(true);
    const enc = { resourceType: "Encounter", id: "e1", status: "planned", class: { code: "AMB" } };
    expect(matchesChange(spec(topic("encounter-start")), change({ ...enc, status: "in-progress" }, "update", enc))).toBe(true);
    expect(matchesChange(spec(topic("encounter-start")), change({ ...enc, status: "in-progress" }, "update", { ...enc, status: "in-progress" }))).toBe(false);
    expect(matchesChange(spec(topic("encounter-end")), change({ ...enc, status: "finished" }, "update", { ...enc, status: "in-progress" }))).toBe(true);
    expect(matchesChange(spec(topic("alert-raised")), change({ resourceType: "Flag", id: "f1", status: "active", code: { text: "x" }, subject: { reference: "Patient/p1" } }))).toBe(true);
  });
});

describe("notification Bundles", () => {
  const base = "https://host/fhir/r4/org1";
  const event = { eventNumber: 7, timestamp: "2026-01-01T00:00:00Z", focus: { type: "Observation", id: "o1", version: "1" }, action: "create" as const, resource: heartRate };

  it("a history Bundle whose first entry is the R4 SubscriptionStatus", () => {
    const b = notificationBundle({ baseUrl: base, subscriptionId: "s1", topic: `${TOPIC_BASE}/resource-created`, status: "active", type: "event-notification", eventsSinceStart: 7, content: "full-resource", events: [event] });
    expect(b.type).toBe("history");
    const status = b.entry![0]!.resource as { resourceType: string; meta: { profile: string[] }; parameter: { name: string; valueCode?: string; valueString?: string; part?: { name: string; valueString?: string; valueReference?: { reference: string } }[] }[] };
    expect(status.resourceType).toBe("Parameters");
    expect(status.meta.profile).toEqual([IG.statusProfile]);
    expect(status.parameter.find((p) => p.name === "type")?.valueCode).toBe("event-notification");
    expect(status.parameter.find((p) => p.name === "events-since-subscription-start")?.valueString).toBe("7");
    const ne = status.parameter.find((p) => p.name === "notification-event")!;
    expect(ne.part!.find((p) => p.name === "event-number")?.valueString).toBe("7");
    expect(ne.part!.find((p) => p.name === "focus")?.valueReference?.reference).toBe(`${base}/Observation/o1`);
    expect(b.entry![0]!.request).toEqual({ method: "GET", url: `${base}/Subscription/s1/$status` });
    expect(b.entry![1]).toMatchObject({ fullUrl: `${base}/Observation/o1`, resource: heartRate, request: { method: "POST", url: "Observation" } });
  });

  it("id-only lists the focus without the resource; empty lists neither", () => {
    const idOnly = notificationBundle({ baseUrl: base, subscriptionId: "s1", status: "active", type: "event-notification", eventsSinceStart: 7, content: "id-only", events: [event] });
    expect(idOnly.entry![1]!.fullUrl).toBe(`${base}/Observation/o1`);
    expect(idOnly.entry![1]!.resource).toBeUndefined();
    const empty = notificationBundle({ baseUrl: base, subscriptionId: "s1", status: "active", type: "event-notification", eventsSinceStart: 7, content: "empty", events: [event] });
    expect(empty.entry).toHaveLength(1);
    expect(JSON.stringify(empty)).not.toContain("Observation/o1");
  });
});

describe("status rules", () => {
  it("requested → active on a delivery; error after the streak, with the reason; off stays off", () => {
    expect(statusAfter("requested", undefined, { next: "delivered", failureStreak: 0 })).toEqual({ status: "active" });
    expect(statusAfter("active", undefined, { next: "delivered", failureStreak: 0 })).toBeUndefined();
    expect(statusAfter("active", undefined, { next: "retry", failureStreak: ERROR_STREAK - 1, message: "refused" })).toBeUndefined();
    expect(statusAfter("active", undefined, { next: "retry", failureStreak: ERROR_STREAK, message: "server_error: HTTP 500" })).toEqual({ status: "error", error: "server_error: HTTP 500" });
    expect(statusAfter("requested", undefined, { next: "dead", failureStreak: 1, message: "client_error: HTTP 404" })).toEqual({ status: "error", error: "client_error: HTTP 404" });
    expect(statusAfter("error", "x", { next: "delivered", failureStreak: 0 })).toEqual({ status: "active" });
    expect(statusAfter("off", undefined, { next: "delivered", failureStreak: 0 })).toBeUndefined();
  });
});
