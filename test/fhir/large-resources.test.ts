// Resources larger than the store keeps in a row: a clear 413 OperationOutcome naming the
// limit (single writes, patches, transactions, batches), never a 500; a large Binary still works.
// Search bodies of megabytes: a 400 for an oversized value, a shortened query in the AuditEvent.
import { describe, expect, it } from "vitest";
import { MAX_AUDIT_QUERY_CHARS } from "../../src/features/fhir/audit";
import { MAX_SEARCH_VALUE_CHARS } from "../../src/features/fhir/search/parse";
import { MAX_RESOURCE_BYTES } from "../../src/features/fhir/storage/resource-size";
import { type Tenant, createTenant } from "../support/tenants";
import { post } from "./support";
import { eventually } from "../support/eventually";

const div = (chars: number) => `<div xmlns="http://www.w3.org/1999/xhtml">${"x".repeat(chars)}</div>`;
const bigPatient = (id?: string) => ({ resourceType: "Patient", ...(id ? { id } : {}), text: { status: "generated", div: div(3 * 1024 * 1024) } });

async function expectTooLarge(res: Response) {
  expect(res.status).toBe(413);
  const outcome = (await res.json()) as { resourceType: string; issue: { code: string; diagnostics: string }[] };
  expect(outcome.resourceType).toBe("OperationOutcome");
  expect(outcome.issue[0]!.code).toBe("too-costly");
  expect(outcome.issue[0]!.diagnostics).toContain(String(MAX_RESOURCE_BYTES));
  expect(outcome.issue[0]!.diagnostics).toContain("Binary");
}

const fhir = (t: Tenant, path: string, init: RequestInit & { json?: unknown } = {}) => t.fetch(`/fhir/r4/${t.orgId}${path}`, init);
const count = async (t: Tenant, table: string) =>
  (await t.ctx.d1.prepare(`SELECT count(*) AS n FROM ${table} WHERE org_id = ?1`).bind(t.orgId).first<{ n: number }>())!.n;

describe("resources over the size limit", () => {
  it("answers 413 to a 3 MiB create, update and patch, and stores nothing", async () => {
    const t = await createTenant();
    await expectTooLarge(await fhir(t, "/Patient", { method: "POST", json: bigPatient() }));
    await expectTooLarge(await fhir(t, "/Patient/big-1", { method: "PUT", json: bigPatient("big-1") }));
    const small = await post(t, { resourceType: "Patient", name: [{ family: "Small" }] });
    const patch = [{ op: "add", path: "/text", value: bigPatient().text }];
    await expectTooLarge(await fhir(t, `/Patient/${small.id}`, { method: "PATCH", body: JSON.stringify(patch), headers: { "content-type": "application/json-patch+json" } }));
    expect(await count(t, "fhir_history")).toBe(1);
  });

  it("fails a transaction with a 3 MiB entry whole (413), and answers 413 for that entry of a batch", async () => {
    const t = await createTenant();
    const entries = [
      { resource: { resourceType: "Patient", name: [{ family: "Fine" }] }, request: { method: "POST", url: "Patient" } },
      { resource: bigPatient(), request: { method: "POST", url: "Patient" } },
    ];
    await expectTooLarge(await fhir(t, "", { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: entries } }));
    expect(await count(t, "fhir_resources")).toBe(0);
    const res = await fhir(t, "", { method: "POST", json: { resourceType: "Bundle", type: "batch", entry: entries } });
    expect(res.status).toBe(200);
    const bundle = (await res.json()) as { entry: { response: { status: string } }[] };
    expect(bundle.entry.map((e) => e.response.status)).toEqual(["201 Created", "413"]);
  });

  it("keeps a resource just under the limit, readable and searchable", async () => {
    const t = await createTenant();
    const created = await post(t, { resourceType: "Patient", name: [{ family: "Wordy" }], text: { status: "generated", div: div(MAX_RESOURCE_BYTES - 1000) } });
    const read = await fhir(t, `/Patient/${created.id}`);
    expect(read.status).toBe(200);
    const found = (await (await fhir(t, "/Patient?family=Wordy")).json()) as { entry: unknown[] };
    expect(found.entry).toHaveLength(1);
  });

  it("stores a 10 MiB Binary (its content in R2)", async () => {
    const t = await createTenant();
    const data = btoa("y".repeat(7.5 * 1024 * 1024));
    const created = await post(t, { resourceType: "Binary", contentType: "application/pdf", data });
    const back = (await (await fhir(t, `/Binary/${created.id}`)).json()) as { data: string };
    expect(back.data).toBe(data);
  });
});

describe("large search requests", () => {
  const form = (params: [string, string][]) => ({
    method: "POST",
    body: new URLSearchParams(params).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  const audits = async (t: Tenant) =>
    (await t.ctx.d1.prepare("SELECT content FROM fhir_audit_pending WHERE org_id = ?1 UNION ALL SELECT content FROM fhir_resources WHERE org_id = ?1 AND resource_type = 'AuditEvent'")
      .bind(t.orgId)
      .all<{ content: string }>()).results;

  it("answers 400 naming the limit to a 3 MiB search value", async () => {
    const t = await createTenant();
    const res = await fhir(t, "/Patient/_search", form([["name", "x".repeat(3 * 1024 * 1024)]]));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { issue: { diagnostics: string }[] }).issue[0]!.diagnostics).toContain(String(MAX_SEARCH_VALUE_CHARS));
  });

  it("audits a 3 MiB POST _search with its query shortened", async () => {
    const t = await createTenant();
    const params = Array.from({ length: 50 }, (_, i): [string, string] => [`unknown${i}`, "q".repeat(60 * 1024)]);
    const res = await fhir(t, "/Patient/_search", form(params));
    expect(res.status).toBe(200);
    // A search's audit arrives through the audit queue.
    const [audit] = await eventually(() => audits(t), (rows) => rows.length > 0);
    const description = (JSON.parse(audit!.content) as { entity: { description: string }[] }).entity[0]!.description;
    expect(description.length).toBe(MAX_AUDIT_QUERY_CHARS + 1);
    expect(description.startsWith("Patient?unknown0=qqq")).toBe(true);
  });
});
