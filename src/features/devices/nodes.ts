// The device node family: device data (a patient's vitals or readings into a pipeline) and
// device sync (start a manual sync, optionally wait for it). Listed in src/main/plugins.ts.
// Nodes reach the org's data and the run's principal through the pipeline's ai seam
// (services.ai(): env, data, principal), the one seam that carries them.
import { z } from "zod";
import { ApiError } from "../../platform/errors";
import { defineNode, type NodeContext } from "../pipelines";
import { VITALS_METRIC_NAMES } from "./metrics/table";
import { READING_IDENTIFIER_SYSTEM } from "./observation";
import { getSyncLog, startSync } from "./use-cases/sync";
import { patientVitals } from "./use-cases/vitals";

const idOf = (value: unknown, key: string, fallback?: string): string => {
  const v = typeof value === "string" ? value : ((value ?? {}) as Record<string, unknown>)[key];
  const id = typeof v === "string" && v ? v : fallback;
  if (!id || !/^[A-Za-z0-9\-.]{1,64}$/.test(id)) throw new ApiError(400, "DEVICE_NODE_INPUT", `The input needs a ${key} (a FHIR id), as text or as {${key}}`);
  return id;
};

const DataConfig = z
  .object({
    mode: z.enum(["vitals", "readings"]).default("vitals").describe("vitals: the 2.8 summary of one metric; readings: the device Observations"),
    metric: z.enum(VITALS_METRIC_NAMES as [string, ...string[]]).default("heart_rate"),
    days: z.number().int().min(1).max(365).default(7),
    patient_id: z.string().max(64).optional().describe("Default: the input's patient_id"),
    limit: z.number().int().min(1).max(1000).default(100).describe("readings mode: at most this many, newest first"),
  })
  .strict();

export const deviceDataNode = defineNode({
  id: "devices.data",
  name: "Device data",
  category: "healthcare",
  description: "A patient's device data: the vitals of one metric over the last days (points, min/max/average/count), or the device reading Observations themselves.",
  keywords: ["device", "wearable", "vitals", "heart rate", "spo2", "glucose", "cgm", "readings", "rpm"],
  inputs: [{ name: "patient", type: "any", description: "A patient id, or {patient_id}" }],
  outputs: [{ name: "output", type: "json", description: "vitals: {metric, unit, data_points, summary, aggregates}; readings: {observations}" }],
  config: DataConfig,
  documentation: { summary: "Reads device data for a patient.", example: { config: { mode: "vitals", metric: "heart_rate", days: 7 }, inputs: { patient: { patient_id: "123" } } } },
  async run(ctx: NodeContext<z.infer<typeof DataConfig>>) {
    const { config } = ctx;
    const patientId = idOf(ctx.inputs.patient, "patient_id", config.patient_id);
    const fhir = ctx.services.fhir();
    if (config.mode === "vitals") return { outputs: { output: await patientVitals(ctx.services.ai().data, fhir, patientId, config.metric, config.days) } };
    const since = new Date(Date.now() - config.days * 86_400_000).toISOString();
    const query = `patient=${encodeURIComponent(patientId)}&identifier=${encodeURIComponent(`${READING_IDENTIFIER_SYSTEM}|`)}&date=ge${since}&_sort=-date&_count=${config.limit}`;
    const bundle = await fhir.search("Observation", query);
    return { outputs: { output: { observations: (bundle.entry ?? []).flatMap((e) => (e.resource ? [e.resource] : [])) } } };
  },
});

const SyncConfig = z
  .object({
    data_types: z.array(z.string().max(64)).max(50).optional(),
    days: z.number().int().min(1).max(365).optional(),
    device_id: z.string().max(64).optional().describe("Default: the input's device_id"),
    wait_seconds: z.number().int().min(0).max(25).default(0).describe("0: answer the sync id at once; else wait up to this long for the sync to finish"),
  })
  .strict();

const FINAL = new Set(["completed", "partially_failed", "failed"]);

export const deviceSyncNode = defineNode({
  id: "devices.sync",
  name: "Device sync",
  category: "healthcare",
  description: "Starts a manual sync of a linked device (its platform's data types over the last days) and answers its sync id, or waits for it and answers the sync log.",
  keywords: ["device", "wearable", "sync", "backfill", "platform"],
  inputs: [{ name: "device", type: "any", description: "A device id, or {device_id}" }],
  outputs: [{ name: "output", type: "json", description: "{sync_id, state, data_types?}" }],
  config: SyncConfig,
  documentation: { summary: "Starts a device sync.", example: { config: { days: 7, wait_seconds: 10 }, inputs: { device: { device_id: "abc" } } } },
  async run(ctx: NodeContext<z.infer<typeof SyncConfig>>) {
    const { config } = ctx;
    const deviceId = idOf(ctx.inputs.device, "device_id", config.device_id);
    const body = { ...(config.data_types ? { data_types: config.data_types } : {}), ...(config.days ? { days: config.days } : {}) };
    if (ctx.testMode) {
      ctx.wouldWrite(`devices:sync:${deviceId}`, body);
      return { outputs: { output: { sync_id: null, state: "not-started (test mode)" } } };
    }
    const { data, principal } = ctx.services.ai();
    let log = await startSync(data, principal, deviceId, body);
    const deadline = Date.now() + config.wait_seconds * 1000;
    while (!FINAL.has(log.state) && Date.now() < deadline && !ctx.signal.aborted) {
      await new Promise((r) => setTimeout(r, 250));
      log = await getSyncLog(data, log.id);
    }
    return { outputs: { output: { sync_id: log.id, state: log.state, data_types: log.progress } } };
  },
});

export const DEVICE_NODES = [deviceDataNode, deviceSyncNode];
