// Interoperability: the SMART on FHIR JavaScript client (npm `fhirclient`) drives the running
// service (as `npm start` runs it, shared with the browser suite: test/interop/service.ts) over real HTTP from Node, through its Node entry: CRUD and
// JSON Patch, search with paging over next links, history, a transaction, and tenancy.
// fhirclient sends `Authorization: Bearer <tokenResponse.access_token>` itself; the
// X-Organization-ID header goes in through `getRequestDefaults`, the client's hook for headers
// on every request (next-page requests included). And the FHIR Subscriptions websocket channel
// from a real WebSocket client (npm `ws`) on the service's socket: a token from
// $get-ws-binding-token binds, the handshake and a notification arrive; another org's token does not.
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import smart from "fhirclient";
import type Client from "fhirclient/lib/Client";
import { beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Credentials } from "../../bench/lib/worker";
import { type InteropService, NO_KEEP_ALIVE, interopService } from "./service";

interface Resource {
  resourceType: string;
  id?: string;
  meta?: { versionId?: string; lastUpdated?: string };
  [key: string]: unknown;
}
interface Bundle extends Resource {
  type?: string;
  total?: number;
  link?: { relation: string; url: string }[];
  entry?: { resource?: Resource; response?: { status: string; location?: string } }[];
}

let worker: InteropService;

/**
 * A fhirclient Client made through the package's Node entry, for the FHIR base of `orgId`
 * (and that X-Organization-ID), sending `apiKey` as its access token.
 */
function clientFor({ apiKey, orgId }: Pick<Credentials, "apiKey" | "orgId">): Client {
  const req = new IncomingMessage(new Socket());
  const client = smart(req, new ServerResponse(req)).client({
    serverUrl: `${worker.url}/fhir/r4/${orgId}`,
    tokenResponse: { access_token: apiKey },
  });
  const defaults = client.getRequestDefaults.bind(client);
  client.getRequestDefaults = async () => {
    const base = await defaults();
    return { ...base, headers: { ...(base.headers as Record<string, string>), "x-organization-id": orgId, ...NO_KEEP_ALIVE } };
  };
  return client;
}

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  }
}

beforeAll(() => {
  worker = interopService(import.meta.filename);
});

describe("fhirclient against the running service", () => {
  it("sends the API key as a Bearer token from its token response", async () => {
    const client = clientFor(worker);
    expect(client.getAuthorizationHeader()).toBe(`Bearer ${worker.apiKey}`);
    const cs = await client.request<Resource>("metadata");
    expect(cs).toMatchObject({ resourceType: "CapabilityStatement", fhirVersion: "4.0.1" });
  });

  it("creates, reads, updates, patches, deletes", async () => {
    const client = clientFor(worker);
    const created = await client.create<Resource>({ resourceType: "Patient", name: [{ family: "Smart", given: ["Js"] }] } as never);
    expect(created).toMatchObject({ resourceType: "Patient", meta: { versionId: "1" } });
    const id = created.id!;
    const read = await client.request<Resource>(`Patient/${id}`);
    expect(read).toMatchObject({ id, name: [{ family: "Smart", given: ["Js"] }] });

    const updated = await client.update<Resource>({ ...read, gender: "female" } as never);
    expect(updated).toMatchObject({ id, gender: "female", meta: { versionId: "2" } });

    const patched = await client.patch<Resource>(`Patient/${id}`, [
      { op: "add", path: "/birthDate", value: "1990-04-01" },
      { op: "replace", path: "/gender", value: "male" },
    ]);
    expect(patched).toMatchObject({ id, gender: "male", birthDate: "1990-04-01", meta: { versionId: "3" } });

    const v1 = await client.request<Resource>(`Patient/${id}/_history/1`);
    expect(v1.gender).toBeUndefined();
    expect(v1.meta?.versionId).toBe("1");

    const history = await client.request<Bundle>(`Patient/${id}/_history`);
    expect(history.type).toBe("history");
    expect(history.entry?.map((e) => e.resource?.meta?.versionId)).toEqual(["3", "2", "1"]);

    await client.delete(`Patient/${id}`);
    expect(await status(client.request(`Patient/${id}`))).toBe(410);
    const afterDelete = await client.request<Bundle>(`Patient/${id}/_history`);
    expect(afterDelete.entry).toHaveLength(4);
  });

  it("pages through a search by following next links (pageLimit: 0, flat)", async () => {
    const client = clientFor(worker);
    const family = `Pager${Date.now()}`;
    const made = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const p = await client.create<Resource>({ resourceType: "Patient", name: [{ family, given: [`G${i}`] }] } as never);
      made.add(p.id!);
    }
    const first = await client.request<Bundle>(`Patient?family=${family}&_count=5&_total=accurate`);
    expect(first.total).toBe(12);
    expect(first.entry).toHaveLength(5);
    expect(first.link?.some((l) => l.relation === "next")).toBe(true);

    const pages: number[] = [];
    const all = await client.request<Resource[]>(`Patient?family=${family}&_count=5`, {
      pageLimit: 0,
      flat: true,
      onPage: (page: unknown) => {
        pages.push((page as unknown[]).length);
      },
    });
    // With onPage fhirclient hands each page to the callback and resolves to null.
    expect(all).toBeNull();
    expect(pages).toEqual([5, 5, 2]);

    const flat = await client.request<Resource[]>(`Patient?family=${family}&_count=5`, { pageLimit: 0, flat: true });
    expect(flat).toHaveLength(12);
    expect(new Set(flat.map((r) => r.id))).toEqual(made);

    const twoPages = await client.request<Resource[]>(`Patient?family=${family}&_count=5`, { pageLimit: 2, flat: true });
    expect(twoPages).toHaveLength(10);

    const viaGenerator: string[] = [];
    for await (const r of client.resources(`Patient?family=${family}&_count=4`)) viaGenerator.push(r.id!);
    expect(new Set(viaGenerator)).toEqual(made);
    expect(viaGenerator).toHaveLength(12);
  });

  it("reads type history", async () => {
    const client = clientFor(worker);
    const obs = await client.create<Resource>({ resourceType: "Observation", status: "final", code: { text: "hist" } } as never);
    await client.update<Resource>({ ...obs, status: "amended" } as never);
    const history = await client.request<Bundle>("Observation/_history");
    const versions = (history.entry ?? []).filter((e) => e.resource?.id === obs.id).map((e) => e.resource?.meta?.versionId);
    expect(versions).toEqual(["2", "1"]);
  });

  it("posts a transaction Bundle to the base URL", async () => {
    const client = clientFor(worker);
    const patientUrn = "urn:uuid:6f1e4c1a-0000-4000-8000-00000000f001";
    const bundle = {
      resourceType: "Bundle",
      type: "transaction",
      entry: [
        { fullUrl: patientUrn, resource: { resourceType: "Patient", name: [{ family: "Tx" }] }, request: { method: "POST", url: "Patient" } },
        {
          resource: { resourceType: "Observation", status: "final", code: { text: "tx" }, subject: { reference: patientUrn } },
          request: { method: "POST", url: "Observation" },
        },
      ],
    };
    const res = await client.request<Bundle>({
      url: "",
      method: "POST",
      body: JSON.stringify(bundle),
      headers: { "content-type": "application/fhir+json" },
    });
    expect(res.type).toBe("transaction-response");
    expect(res.entry?.map((e) => e.response?.status)).toEqual(["201 Created", "201 Created"]);
    const patientId = res.entry![0]!.resource!.id!;
    const obsId = res.entry![1]!.resource!.id!;
    const obs = await client.request<Resource>(`Observation/${obsId}`);
    expect(obs.subject).toEqual({ reference: `Patient/${patientId}` });
    const found = await client.request<Resource[]>(`Observation?subject=Patient/${patientId}`, { flat: true });
    expect(found.map((r) => r.id)).toEqual([obsId]);
  });

  it("keeps organizations apart: another organization's key cannot reach this one's records", async () => {
    const mine = clientFor(worker);
    const other = worker.others[0]!;
    const p = await mine.create<Resource>({ resourceType: "Patient", name: [{ family: "Private" }] } as never);

    // The other org's client, pointed at its own base: the record is not there.
    const theirs = clientFor(other);
    expect(await status(theirs.request(`Patient/${p.id}`))).toBe(404);
    const search = await theirs.request<Resource[]>("Patient?family=Private", { flat: true });
    expect(search).toEqual([]);

    // The other org's key against this org's base URL: refused.
    const intruder = clientFor({ apiKey: other.apiKey, orgId: worker.orgId });
    expect(await status(intruder.request(`Patient/${p.id}`))).toBe(403);
    expect(await status(intruder.delete(`Patient/${p.id}`))).toBe(403);
    // Still there, untouched.
    expect(await mine.request<Resource>(`Patient/${p.id}`)).toMatchObject({ id: p.id, meta: { versionId: "1" } });
  });
});

const BACKPORT = "http://hl7.org/fhir/uv/subscriptions-backport/StructureDefinition";

/** A real WebSocket to `url`, with every text frame it receives, in order. */
async function subscriptionSocket(url: string): Promise<{ socket: WebSocket; frames: string[]; until: (n: number) => Promise<Resource[]> }> {
  const socket = new WebSocket(url);
  const frames: string[] = [];
  socket.on("message", (data) => frames.push(data.toString()));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const bundles = () => frames.filter((f) => f.startsWith("{")).map((f) => JSON.parse(f) as Resource);
  const until = async (n: number) => {
    const deadline = Date.now() + 20_000;
    while (bundles().length < n) {
      if (Date.now() > deadline) throw new Error(`${n} JSON frames not received: ${JSON.stringify(frames)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return bundles();
  };
  return { socket, frames, until };
}

describe("FHIR Subscriptions websocket channel over a real WebSocket", () => {
  const fhir = (who: Credentials, path: string, body?: unknown) =>
    fetch(`${worker.url}/fhir/r4/${who.orgId}/${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { ...who.headers, "content-type": "application/fhir+json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const tokenOf = async (who: Credentials, id: string) => {
    const res = await fhir(who, `Subscription/${id}/$get-ws-binding-token`);
    expect(res.status).toBe(200);
    const p = ((await res.json()) as { parameter: { name: string; valueString?: string; valueUrl?: string }[] }).parameter;
    return { token: p.find((x) => x.name === "token")?.valueString ?? "", url: p.find((x) => x.name === "websocket-url")?.valueUrl ?? "" };
  };
  const subscription = {
    resourceType: "Subscription",
    status: "requested",
    reason: "interop websocket",
    criteria: "https://cdis.dev/fhir/SubscriptionTopic/resource-created",
    _criteria: { extension: [{ url: `${BACKPORT}/backport-filter-criteria`, valueString: "Observation?subject=Patient/ws-1" }] },
    channel: { type: "websocket", payload: "application/fhir+json", _payload: { extension: [{ url: `${BACKPORT}/backport-payload-content`, valueCode: "full-resource" }] } },
  };
  const typeOf = (b: Resource) => ((b.entry as { resource: { parameter: { name: string; valueCode?: string }[] } }[])[0]?.resource.parameter ?? []).find((p) => p.name === "type")?.valueCode;

  it("binds with a $get-ws-binding-token token and receives the handshake and a notification; another organization's token is refused", async () => {
    const created = await fhir(worker, "Subscription", subscription);
    expect(created.status).toBe(201);
    const sub = (await created.json()) as Resource;
    const binding = await tokenOf(worker, sub.id ?? "");
    // The websocket-url names this service's own address and the organization's FHIR base.
    expect(binding.url).toBe(`${worker.url.replace(/^http/, "ws")}/fhir/r4/${worker.orgId}/$subscription-ws`);

    const mine = await subscriptionSocket(binding.url);
    // Another organization's socket, with this organization's token: refused, and it hears nothing.
    const other = worker.others[0]!;
    const theirs = await subscriptionSocket(`${worker.url.replace(/^http/, "ws")}/fhir/r4/${other.orgId}/$subscription-ws`);
    try {
      theirs.socket.send(`bind-with-token ${binding.token}`);
      const [refused] = await theirs.until(1);
      expect(refused?.resourceType).toBe("OperationOutcome");

      mine.socket.send(`bind-with-token ${binding.token}`);
      const [handshake] = await mine.until(1);
      expect(handshake?.resourceType).toBe("Bundle");
      expect(typeOf(handshake!)).toBe("handshake");
      const obs = await fhir(worker, "Observation", { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] }, subject: { reference: "Patient/ws-1" } });
      expect(obs.status).toBe(201);
      const written = (await obs.json()) as Resource;
      const got = await mine.until(2);
      expect(typeOf(got[1]!)).toBe("event-notification");
      expect((got[1]!.entry as { resource: Resource }[])[1]?.resource).toMatchObject({ resourceType: "Observation", id: written.id });
      expect(theirs.frames.filter((f) => f.startsWith("{")).map((f) => (JSON.parse(f) as Resource).resourceType)).toEqual(["OperationOutcome"]);
    } finally {
      mine.socket.close();
      theirs.socket.close();
    }
  });
});
