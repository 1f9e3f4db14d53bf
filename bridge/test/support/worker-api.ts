// The few calls of the real Worker's API the end-to-end test needs: deploy a pipeline,
// read inbound message records, search Patients in the FHIR store.
import type { RunningWorker } from "../../../bench/lib/worker";

export type WorkerApi = Pick<RunningWorker, "url" | "orgId" | "headers">;

export interface MessageSummary {
  id: string;
  status: string;
  sender: string | null;
  control_id: string | null;
}

export interface MessageDetail extends MessageSummary {
  resources: string[];
  executions: string[];
  error: { code: string; message: string } | null;
}

interface Bundle {
  total?: number;
  entry?: { resource?: { resourceType: string; id: string } }[];
}

async function call<T>(worker: WorkerApi, method: string, pathname: string, body?: unknown): Promise<T> {
  const response = await fetch(`${worker.url}${pathname}`, {
    method,
    headers: { ...worker.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** Creates and deploys an HL7 ADT → FHIR pipeline (inbound trigger into hl7.to_fhir, which stores). */
export async function deployAdtToFhir(worker: WorkerApi): Promise<string> {
  const definition = {
    nodes: [
      { id: "in", type: "hl7.inbound_trigger", config: { message_type: "ADT" } },
      { id: "fhir", type: "hl7.to_fhir", config: {} },
    ],
    connections: [{ from: { node: "in", port: "message" }, to: { node: "fhir", port: "message" } }],
  };
  const body = { name: "bridge e2e ADT to FHIR", description: "MLLP bridge end-to-end test", definition };
  const { id } = await call<{ id: string }>(worker, "POST", "/api/pipelines", body);
  await call(worker, "POST", `/api/pipelines/${id}/deploy`);
  return id;
}

/** Every stored record of one sender's MSH-10. */
export async function messagesWithControlId(worker: WorkerApi, sender: string, controlId: string): Promise<MessageSummary[]> {
  const query = new URLSearchParams({ control_id: controlId, sender, limit: "100" });
  return (await call<{ messages: MessageSummary[] }>(worker, "GET", `/api/hl7/messages?${query}`)).messages;
}

export async function messageDetail(worker: WorkerApi, id: string): Promise<MessageDetail> {
  return call<MessageDetail>(worker, "GET", `/api/hl7/messages/${encodeURIComponent(id)}`);
}

/** Ids of the Patients carrying an identifier with this value (any system). */
export async function patientsWithIdentifier(worker: WorkerApi, value: string): Promise<string[]> {
  const query = new URLSearchParams({ identifier: value, _count: "100" });
  const bundle = await call<Bundle>(worker, "GET", `/fhir/r4/${worker.orgId}/Patient?${query}`);
  return (bundle.entry ?? []).flatMap((e) => (e.resource?.resourceType === "Patient" ? [e.resource.id] : []));
}

/** Creates a Patient in the organization of `worker` and returns its id. */
export async function createPatient(worker: WorkerApi, family: string): Promise<string> {
  const patient = { resourceType: "Patient", name: [{ family }] };
  return (await call<{ id: string }>(worker, "POST", `/fhir/r4/${worker.orgId}/Patient`, patient)).id;
}

/** Links an MQTT device to a patient; returns the Device id topics name. */
export async function linkMqttDevice(worker: WorkerApi, patientId: string, name: string): Promise<string> {
  const link = await call<{ device_id: string }>(worker, "POST", `/api/v1/patients/${patientId}/devices`, { name, platform: "mqtt" });
  return link.device_id;
}

export interface DeviceObservation {
  id: string;
  /** The reading identifier: `mqtt|<deviceId>:<msgId>|<metric>`. */
  identifier: string;
  device: string | undefined;
  code: string | undefined;
}

/** Every Observation of a patient, following the search's next links. */
export async function observationsOf(worker: WorkerApi, patientId: string): Promise<DeviceObservation[]> {
  const found: DeviceObservation[] = [];
  let next: string | undefined = `/fhir/r4/${worker.orgId}/Observation?subject=Patient/${patientId}&_count=500`;
  while (next) {
    const bundle: Bundle & { link?: { relation: string; url: string }[] } = await call(worker, "GET", next);
    for (const e of bundle.entry ?? []) {
      const r = e.resource as unknown as { id: string; identifier?: { value: string }[]; device?: { reference: string }; code?: { coding?: { code: string }[] } };
      found.push({ id: r.id, identifier: r.identifier?.[0]?.value ?? "", device: r.device?.reference, code: r.code?.coding?.[0]?.code });
    }
    const url = bundle.link?.find((l) => l.relation === "next")?.url;
    next = url ? url.slice(url.indexOf("/fhir/")) : undefined;
  }
  return found;
}

/** A service API key of the organization (what the bridge runs with). */
export async function createServiceKey(worker: WorkerApi): Promise<string> {
  return (await call<{ key: string }>(worker, "POST", "/api/api-keys", { name: "bridge", role: "service" })).key;
}
