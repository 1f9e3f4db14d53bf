// The store's access-policy hook: a policy that withholds one patient's record (as consent
// enforcement will) hides it from read, vread, search (entries, includes and totals alike),
// history, Patient/$everything and export, and refuses writes to it with a 403 OperationOutcome.
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import { type AccessPolicy, PERMIT, patientsOf } from "../../src/features/fhir/access-policy";
import { fhirStoreFor } from "../../src/features/fhir";
import { FHIR_EXTENSIONS } from "../../src/main/catalogs";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { appFetch } from "../support/app-fetch";
import { type Tenant, createTenant } from "../support/tenants";
import { post } from "./support";

/** Withholds every resource in the compartment of the patients in `withheld`. */
function withholding(withheld: Set<string>): AccessPolicy {
  const denied = (resource?: Resource, patient?: string) =>
    (patient !== undefined && withheld.has(patient)) || (resource !== undefined && patientsOf(resource).some((p) => withheld.has(p)));
  return {
    check: ({ resource, patient }) => (denied(resource, patient) ? { permit: false, reason: "the patient's consent withholds it" } : PERMIT),
    filter: (_principal, _action, items, resourceOf) => items.filter((item) => !denied(resourceOf(item))),
  };
}

async function twoPatients(t: Tenant) {
  const shown = await post(t, { resourceType: "Patient", name: [{ family: "Shown" }] });
  const hidden = await post(t, { resourceType: "Patient", name: [{ family: "Hidden" }] });
  const observation = (p: { id: string }, value: number) =>
    post(t, { resourceType: "Observation", status: "final", code: { text: "hr" }, subject: { reference: `Patient/${p.id}` }, valueQuantity: { value } });
  const shownObs = [await observation(shown, 60), await observation(shown, 61)];
  const hiddenObs = [await observation(hidden, 90), await observation(hidden, 91), await observation(hidden, 92)];
  return { shown, hidden, shownObs, hiddenObs, withheld: new Set([hidden.id]) };
}

const idsOf = (b: Bundle) => (b.entry ?? []).filter((e) => e.resource).map((e) => `${e.resource!.resourceType}/${e.resource!.id}`);

describe("access policy", () => {
  it("hides a withheld patient's data from reads, searches, history and $everything", async () => {
    const t = await createTenant();
    const { shown, hidden, shownObs, hiddenObs, withheld } = await twoPatients(t);
    const fetch = appFetch(buildApp({ policyFor: () => withholding(withheld) }), t);
    const base = `/fhir/r4/${t.orgId}`;
    const json = async (path: string) => {
      const res = await fetch(`${base}/${path}`);
      expect(res.status, path).toBe(200);
      return (await res.json()) as Bundle;
    };

    // Reads: absent, as another organization's resource would be (404, not 403), even once deleted (not 410).
    expect((await t.fetch(`${base}/Observation/${hiddenObs[2]!.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(`${base}/Patient/${shown.id}`)).status).toBe(200);
    for (const path of [`Patient/${hidden.id}`, `Observation/${hiddenObs[0]!.id}`, `Observation/${hiddenObs[2]!.id}`, `Patient/${hidden.id}/_history/1`, `Patient/${hidden.id}/$everything`]) {
      const res = await fetch(`${base}/${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as Resource).resourceType).toBe("OperationOutcome");
    }

    // Searches: entries, includes and totals agree, whichever way the total is found.
    const patients = await json("Patient?_total=accurate");
    expect(idsOf(patients)).toEqual([`Patient/${shown.id}`]);
    expect(patients.total).toBe(1);
    expect((await json("Observation?_summary=count")).total).toBe(2);
    expect((await json("Observation?code:text=hr&_total=accurate")).total).toBe(2);
    const paged = await json("Observation?_count=1&_total=estimate");
    expect(paged.total === undefined || paged.total === 2).toBe(true);
    const small = await json("Observation?_count=50");
    expect(idsOf(small).sort()).toEqual(shownObs.map((o) => `Observation/${o.id}`).sort());
    expect(small.total).toBe(2);
    const revincluded = await json("Patient?_revinclude=Observation:subject");
    expect(idsOf(revincluded).sort()).toEqual([`Patient/${shown.id}`, ...shownObs.map((o) => `Observation/${o.id}`)].sort());
    const included = await json(`Observation?subject=Patient/${hidden.id}&_include=Observation:subject`);
    expect(idsOf(included)).toEqual([]);
    expect(included.total).toBe(0);
    // Paging still walks past what the policy hides.
    const seen: string[] = [];
    let next: string | undefined = `http://localhost${base}/Observation?_count=1`;
    while (next) {
      const url: URL = new URL(next);
      const page = (await (await fetch(url.pathname + url.search)).json()) as Bundle;
      seen.push(...idsOf(page));
      next = page.link?.find((l) => l.relation === "next")?.url;
    }
    expect(seen.sort()).toEqual(shownObs.map((o) => `Observation/${o.id}`).sort());

    // History: no withheld version at any level.
    const hiddenKeys = [`Patient/${hidden.id}`, ...hiddenObs.map((o) => `Observation/${o.id}`)];
    for (const path of ["_history?_count=100", "Observation/_history?_count=100", `Patient/${hidden.id}/_history`]) {
      const history = await json(path);
      expect(idsOf(history).filter((k) => hiddenKeys.includes(k)), path).toEqual([]);
    }
    expect(idsOf(await json("_history?_count=100"))).toContain(`Patient/${shown.id}`);

    // $everything of another patient leaves the withheld record out.
    const everything = await json(`Patient/${shown.id}/$everything`);
    expect(idsOf(everything).sort()).toEqual([`Patient/${shown.id}`, ...shownObs.map((o) => `Observation/${o.id}`)].sort());

    // Without the policy (the default), everything is there.
    expect((await t.fetch(`${base}/Patient/${hidden.id}`)).status).toBe(200);
  });

  it("refuses writes to a withheld patient's record with a 403 OperationOutcome", async () => {
    const t = await createTenant();
    const { shown, hidden, hiddenObs, withheld } = await twoPatients(t);
    const fetch = appFetch(buildApp({ policyFor: () => withholding(withheld) }), t);
    const base = `/fhir/r4/${t.orgId}`;
    const moved = { ...hiddenObs[0]!, subject: { reference: `Patient/${shown.id}` } };
    const denied: [string, RequestInit & { json?: unknown }][] = [
      ["Observation", { method: "POST", json: { resourceType: "Observation", status: "final", code: { text: "hr" }, subject: { reference: `Patient/${hidden.id}` } } }],
      [`Patient/${hidden.id}`, { method: "PUT", json: { ...hidden, active: true } }],
      // A conditional create that matches withheld data would answer it.
      ["Patient", { method: "POST", headers: { "if-none-exist": `_id=${hidden.id}` }, json: { resourceType: "Patient" } }],
      // Moving a resource out of the withheld record is judged on the version it replaces.
      [`Observation/${moved.id}`, { method: "PUT", json: moved }],
      [`Observation/${hiddenObs[1]!.id}`, { method: "DELETE" }],
      [`Observation/${hiddenObs[2]!.id}`, { method: "PATCH", headers: { "content-type": "application/json-patch+json" }, body: JSON.stringify([{ op: "replace", path: "/status", value: "amended" }]) }],
      [
        "",
        {
          method: "POST",
          json: { resourceType: "Bundle", type: "transaction", entry: [{ resource: { ...hidden, active: false }, request: { method: "PUT", url: `Patient/${hidden.id}` } }] },
        },
      ],
    ];
    for (const [path, init] of denied) {
      const res = await fetch(`${base}${path ? `/${path}` : ""}`, init);
      expect(res.status, `${init.method} ${path}`).toBe(403);
      const outcome = (await res.json()) as { resourceType: string; issue: { diagnostics: string }[] };
      expect(outcome.resourceType).toBe("OperationOutcome");
      expect(outcome.issue[0]!.diagnostics).toMatch(/consent withholds it/);
    }
    // Nothing changed, and writes elsewhere still work.
    const current = (await (await t.fetch(`${base}/Observation/${hiddenObs[1]!.id}`)).json()) as Resource;
    expect(current.meta?.versionId).toBe("1");
    expect((await fetch(`${base}/Patient/${shown.id}`, { method: "PUT", json: { ...shown, active: true } })).status).toBe(200);
  });

  it("filters export pages through the policy of the principal the store reads as", async () => {
    const t = await createTenant();
    const { shown, shownObs, hiddenObs, withheld } = await twoPatients(t);
    const principal = { orgId: t.orgId, keyId: t.keyId, keyName: "admin key", role: "admin" as const, scopes: [] };
    const until = new Date(Date.now() + 1000).toISOString();
    const exported = async (policy: AccessPolicy | undefined, type: string) => {
      const store = fhirStoreFor(t.ctx, principal, { extensions: FHIR_EXTENSIONS, ...(policy ? { policy } : {}) });
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        // One row a page: pages the policy empties must still move on.
        const page = await store.exportPage({ type, until, limit: 1, ...(cursor ? { cursor } : {}) });
        ids.push(...page.lines.map((l) => (JSON.parse(l) as Resource).id!));
        cursor = page.cursor;
      } while (cursor);
      return ids.sort();
    };
    expect(await exported(withholding(withheld), "Observation")).toEqual(shownObs.map((o) => o.id).sort());
    expect(await exported(withholding(withheld), "Patient")).toEqual([shown.id]);
    expect(await exported(undefined, "Observation")).toEqual([...shownObs, ...hiddenObs].map((o) => o.id).sort());
  });
});
