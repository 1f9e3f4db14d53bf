// The HL7 v2 node family: the inbound trigger (messages routed from the message
// store), HL7 to FHIR (optionally storing the transaction), FHIR to HL7, parse to
// JSON, ACK, and send (outbound over MLLP through an mllp connector).
import { z } from "zod";
import { parseMllpEndpoint } from "./mllp-framing";
import { ApiError } from "../../platform/errors";
import type { Bundle } from "../../platform/fhir-resource";
import { type AckCode, type AckReading, buildAck, readAck } from "./ack";
import { convertToFhirWithReport } from "./convert/index";
import { Hl7ConversionError, Hl7EncodingError, Hl7ParseError } from "./errors";
import { convertFromFhir, ENCODABLE_MESSAGE_TYPES, type EncodableMessageType, type HdInput, VERSIONS } from "./from-fhir/index";
import type { Hl7Message, Hl7Value } from "./message";
import { parseMessage } from "./parse";
import { URL_NAMESPACE, uuidV5 } from "../../platform/name-uuid";
import type { InboundEventPayload } from "../../features/inbound";
import { defineNode } from "../../features/pipelines";
import { CONSENT_DENIED_PORT, DestinationIdConfig, OutboundConsentConfig, outboundConsentGate, queueMessage } from "../../features/pipelines";

export const HL7_EVENT_TYPE = "hl7.message";

/** What the message router hands a pipeline whose HL7 trigger matched: the payload of every inbound event. */
export type Hl7EventPayload = InboundEventPayload;

const MESSAGE_IN = [{ name: "message", type: "hl7-message", description: "HL7 v2 text, or the HL7 trigger's event" }];

/**
 * The message text from a port value: the text itself, an HL7 trigger event, or
 * the event of another trigger carrying it as `raw` or `message` (API, webhook).
 */
function messageText(value: unknown): string {
  if (typeof value === "string") return value;
  const v = (value ?? {}) as { payload?: Partial<Hl7EventPayload>; raw?: unknown; message?: unknown };
  for (const candidate of [v.payload?.raw, v.raw, v.message]) if (typeof candidate === "string") return candidate;
  throw new ApiError(400, "HL7_INPUT_INVALID", "The message input must be HL7 v2 text, an HL7 trigger event, or an event with a raw or message field");
}

/** Parse failures are the input's fault: a 4xx the error policy can route, never a crash. */
function parsed(value: unknown): Hl7Message {
  try {
    return parseMessage(messageText(value));
  } catch (err) {
    if (err instanceof Hl7ParseError) throw new ApiError(422, `HL7_${err.code}`, err.message);
    throw err;
  }
}

const TriggerConfig = z
  .object({
    message_type: z.string().regex(/^[A-Z0-9]{3}$/).optional().describe("MSH-9.1, e.g. ADT"),
    trigger_event: z.string().regex(/^[A-Z0-9]{3}$/).optional().describe("MSH-9.2, e.g. A01"),
    sending_application: z.string().max(200).optional().describe("MSH-3 as sent"),
    sending_facility: z.string().max(200).optional().describe("MSH-4 as sent"),
  })
  .strict();

/** The attributes the message router sets on an HL7 event; the trigger matches a subset. */
export function hl7EventAttributes(m: { messageType: string | null; triggerEvent: string | null; sender: string | null }): Record<string, string> {
  const [app = "", facility = ""] = (m.sender ?? "").split("|");
  return {
    message_type: m.messageType ?? "",
    trigger_event: m.triggerEvent ?? "",
    sending_application: app,
    sending_facility: facility,
  };
}

export const hl7InboundTrigger = defineNode({
  id: "hl7.inbound_trigger",
  name: "HL7 v2 inbound trigger",
  category: "healthcare",
  description:
    "Starts the deployed pipeline for each inbound HL7 v2 message (MLLP bridge or POST /api/v1/hl7/messages) that matches the filters, in arrival order per sender.",
  keywords: ["hl7", "v2", "mllp", "inbound", "adt", "oru", "trigger", "interface"],
  inputs: [],
  outputs: [
    { name: "event", type: "trigger-event", description: "{type, attributes, payload: {message_id, control_id, sender, raw}}" },
    { name: "message", type: "hl7-message", description: "The message text" },
  ],
  config: TriggerConfig,
  trigger: {
    kind: "event",
    index: (config) => ({
      match: HL7_EVENT_TYPE,
      attributes: Object.fromEntries(Object.entries(config).filter(([, v]) => typeof v === "string" && v !== "")) as Record<string, string>,
    }),
  },
  documentation: {
    summary: "Every filter left out matches anything. Connect `message` to HL7 to FHIR to store admissions as Patient and Encounter.",
    example: { config: { message_type: "ADT", trigger_event: "A01" }, outputs: { message: "MSH|^~\\&|EPIC|HOSP|..." } },
  },
  run: async (ctx) => {
    const event = ctx.inputs.event ?? {};
    return { outputs: { event, message: messageText(event) } };
  },
});

const ToFhirConfig = z
  .object({
    store: z.boolean().default(true).describe("Execute the Bundle as a transaction in the FHIR store"),
    system_base: z.string().max(200).optional().describe("Base of identifier systems the converter makes up (default urn:hl7v2)"),
    authorities: z.record(z.string(), z.string()).optional().describe("Assigning authority → identifier system URI"),
    coding_systems: z.record(z.string(), z.string()).optional().describe("CWE.3 coding system name → code system URI"),
    default_timezone: z.string().regex(/^(Z|[+-]\d{2}:\d{2})$/).optional(),
    patient_mode: z.enum(["update", "create"]).optional().describe("Overwrite demographics (update) or only create missing Patients"),
  })
  .strict();

export const hl7ToFhir = defineNode({
  id: "hl7.to_fhir",
  name: "HL7 to FHIR",
  category: "healthcare",
  description:
    "Converts an HL7 v2 message (ADT, ORU^R01, ORM^O01, SIU, MDM, DFT) into a FHIR R4 transaction Bundle following the HL7 V2-to-FHIR IG, and by default stores it. Re-sending a message creates nothing twice.",
  keywords: ["hl7", "v2", "fhir", "convert", "transform", "adt", "oru", "patient", "encounter", "observation"],
  inputs: MESSAGE_IN,
  outputs: [
    { name: "bundle", type: "fhir-bundle", description: "The transaction Bundle" },
    { name: "response", type: "fhir-bundle", description: "The transaction-response Bundle, when stored" },
    { name: "warnings", type: "json", description: "Values left out because they could not be converted" },
  ],
  config: ToFhirConfig,
  documentation: {
    summary: "An ADT^A01 creates or updates the Patient (matched on identifier and assigning authority) and creates the Encounter.",
    example: { config: { store: true }, inputs: { message: "MSH|^~\\&|EPIC|HOSP|||20260101||ADT^A01|123|P|2.5.1\rPID|1||42^^^HOSP^MR||Doe^Jane" } },
  },
  run: async (ctx) => {
    const message = parsed(ctx.inputs.message);
    let result: ReturnType<typeof convertToFhirWithReport>;
    try {
      result = convertToFhirWithReport(message, {
        ...(ctx.config.system_base ? { systemBase: ctx.config.system_base } : {}),
        ...(ctx.config.authorities ? { authorities: ctx.config.authorities } : {}),
        ...(ctx.config.coding_systems ? { codingSystems: ctx.config.coding_systems } : {}),
        ...(ctx.config.default_timezone ? { defaultTimezone: ctx.config.default_timezone } : {}),
        ...(ctx.config.patient_mode ? { patientMode: ctx.config.patient_mode } : {}),
      });
    } catch (err) {
      if (err instanceof Hl7ConversionError) throw new ApiError(422, `HL7_${err.code}`, err.message);
      throw err;
    }
    const outputs: Record<string, unknown> = { bundle: result.bundle, warnings: result.warnings };
    if (ctx.config.store) {
      if (ctx.testMode) ctx.wouldWrite("fhir:transaction", result.bundle);
      else outputs.response = (await ctx.services.fhir().batch(result.bundle)) satisfies Bundle;
    }
    return { outputs };
  },
});

const HdConfig = z.union([
  z.string().min(1).max(227).describe("Namespace id"),
  z
    .object({
      namespace: z.string().max(227).optional(),
      universal_id: z.string().max(199).optional().describe("An OID, UUID or URI"),
      universal_id_type: z.string().max(6).optional().describe("ISO, UUID, URI..."),
    })
    .strict(),
]);
type HdConfig = z.infer<typeof HdConfig>;

const AckType = z.enum(["AL", "NE", "ER", "SU"]);

const MshConfig = z
  .object({
    sending_application: HdConfig.optional().describe("MSH-3"),
    sending_facility: HdConfig.optional().describe("MSH-4; identifiers without an assigning authority are taken to be its own"),
    receiving_application: HdConfig.optional().describe("MSH-5"),
    receiving_facility: HdConfig.optional().describe("MSH-6"),
    version: z.enum(VERSIONS).default("2.5.1").describe("MSH-12"),
    processing_id: z.enum(["P", "D", "T"]).default("P").describe("MSH-11: production, debugging, training"),
    accept_ack_type: AckType.optional().describe("MSH-15"),
    application_ack_type: AckType.optional().describe("MSH-16"),
    character_set: z.string().max(40).optional().describe("MSH-18, e.g. UNICODE UTF-8"),
    control_id_prefix: z.string().regex(/^[A-Za-z0-9._-]{0,8}$/).optional().describe("Put before the MSH-10 the node derives (20 characters in all)"),
  })
  .strict();

const FromFhirConfig = z
  .object({
    message_type: z.enum(Object.keys(ENCODABLE_MESSAGE_TYPES) as [EncodableMessageType, ...EncodableMessageType[]]).describe("MSH-9, e.g. ADT^A08"),
    msh: MshConfig.default({ version: "2.5.1", processing_id: "P" }),
    destination_id: z.string().min(1).max(64).optional().describe("A destination whose HL7 settings (docs/destinations.md) fill MSH: they win over msh, since the destination says who the receiver is"),
    system_base: z.string().max(200).optional().describe("As hl7.to_fhir's: systems below it are written back as the names they came from"),
    authorities: z.record(z.string(), z.string()).optional().describe("Assigning authority → identifier system URI, as hl7.to_fhir's (read backwards)"),
    coding_systems: z.record(z.string(), z.string()).optional().describe("CWE.3 coding system name → code system URI, as hl7.to_fhir's (read backwards)"),
  })
  .strict();

const hdInput = (v: HdConfig | undefined): HdInput | undefined =>
  v === undefined || typeof v === "string" ? v : { namespace: v.namespace, universalId: v.universal_id, universalIdType: v.universal_id_type };

/** MSH-10 from the execution, the node and its input: the same message gets the same id when the node is run again. */
function derivedControlId(prefix: string, executionId: string, nodeId: string, input: unknown): string {
  const digest = uuidV5(`${executionId}|${nodeId}|${JSON.stringify(input)}`, URL_NAMESPACE).replace(/-/g, "").toUpperCase();
  return `${prefix}${digest}`.slice(0, 20);
}

export const hl7FromFhir = defineNode({
  id: "hl7.from_fhir",
  name: "FHIR to HL7",
  category: "healthcare",
  description:
    "Builds an HL7 v2 message from a FHIR Bundle (or one resource): ADT^A01/A03/A04/A08/A40 from Patient and Encounter, ORU^R01 from DiagnosticReport and Observation, ORM^O01 and OML^O21 from ServiceRequest, SIU^S12 from Appointment, MDM^T01/T02 from DocumentReference and Binary. The reverse of hl7.to_fhir's mappings, with MSH from the configuration and every value escaped.",
  keywords: ["hl7", "v2", "fhir", "convert", "outbound", "adt", "oru", "orm", "oml", "siu", "mdm", "encode", "build"],
  inputs: [{ name: "bundle", type: "fhir-bundle", description: "A Bundle holding the resources and what they reference, or one resource" }],
  outputs: [
    { name: "message", type: "hl7-message", description: "The message text (segments ended by CR)" },
    { name: "warnings", type: "json", description: "What the message type does not carry: resources left out, values without a field" },
  ],
  config: FromFhirConfig,
  documentation: {
    summary:
      "References are resolved inside the input only (fullUrl, Type/id, conditional identifier references); nothing is read from the store. MSH-10 is derived from the execution, the node and the input, so running the node again on the same input gives the same control id. A message the input cannot make fails the node with HL7_MISSING_RESOURCE (no Patient for ADT...), HL7_MISSING_VALUE (Patient.identifier for PID-3...), HL7_INVALID_INPUT (not FHIR, or resources of two patients) naming the FHIR resource or element. Connect `message` to hl7.send.",
    example: {
      config: { message_type: "ADT^A08", msh: { sending_application: "CDIS", sending_facility: "GENHOSP", receiving_application: "RIS", receiving_facility: "GENHOSP", version: "2.5.1" } },
      inputs: { bundle: { resourceType: "Bundle", type: "collection", entry: [{ resource: { resourceType: "Patient", identifier: [{ system: "urn:hl7v2:authority:GENHOSP", value: "4711" }], name: [{ family: "Musterfrau", given: ["Erika"] }] } }] } },
      outputs: { message: "MSH|^~\\&|CDIS|GENHOSP|RIS|GENHOSP|20260316101500+0000||ADT^A08^ADT_A01|6F1C…|P|2.5.1\rEVN|A08|20260316101500+0000\rPID|1||4711||Musterfrau^Erika\rPV1|1|N\r" },
    },
  },
  run: async (ctx) => {
    const c = ctx.config;
    const fromDestination = c.destination_id ? ((await ctx.services.destinations.settings(c.destination_id)).hl7 ?? {}) : {};
    const msh = { ...c.msh, ...fromDestination } as typeof c.msh;
    try {
      const result = convertFromFhir(ctx.inputs.bundle, {
        messageType: c.message_type,
        msh: {
          sendingApplication: hdInput(msh.sending_application),
          sendingFacility: hdInput(msh.sending_facility),
          receivingApplication: hdInput(msh.receiving_application),
          receivingFacility: hdInput(msh.receiving_facility),
          version: msh.version,
          processingId: msh.processing_id,
          acceptAckType: c.msh.accept_ack_type,
          applicationAckType: c.msh.application_ack_type,
          characterSet: c.msh.character_set,
          controlId: () => derivedControlId(c.msh.control_id_prefix ?? "", ctx.executionId, ctx.nodeId, ctx.inputs.bundle),
        },
        ...(c.system_base ? { systemBase: c.system_base } : {}),
        ...(c.authorities ? { authorities: c.authorities } : {}),
        ...(c.coding_systems ? { codingSystems: c.coding_systems } : {}),
      });
      for (const w of result.warnings) ctx.log("warn", w);
      return { outputs: { message: result.text, warnings: result.warnings } };
    } catch (err) {
      if (err instanceof Hl7EncodingError) throw new ApiError(422, `HL7_${err.code}`, err.message, err.path ? [{ path: err.path, message: err.message }] : []);
      throw err;
    }
  },
});

/** A field as repetitions → components → subcomponents, decoded; single values collapse to strings. */
function valueJson(v: Hl7Value): unknown {
  if (v.level === 3) return v.value;
  const parts = v.list().map(valueJson);
  while (parts.length && (parts.at(-1) === "" || (Array.isArray(parts.at(-1)) && (parts.at(-1) as unknown[]).length === 0))) parts.pop();
  return parts.length === 1 && v.level > 0 ? parts[0] : parts;
}

export const hl7Parse = defineNode({
  id: "hl7.parse",
  name: "HL7 parse",
  category: "healthcare",
  description: "Parses an HL7 v2 message into JSON: header facts plus every segment's fields (repetitions, components, subcomponents), escapes decoded.",
  keywords: ["hl7", "v2", "parse", "json", "segments", "fields"],
  inputs: MESSAGE_IN,
  outputs: [{ name: "output", type: "json" }],
  config: z.object({}).strict(),
  documentation: {
    summary: "Field n of a segment is `fields[n - 1]`, a list of repetitions.",
    example: { config: {}, outputs: { output: { message_type: "ADT", trigger_event: "A01", control_id: "123", segments: [{ name: "PID", fields: [["1"]] }] } } },
  },
  run: async (ctx) => {
    const m = parsed(ctx.inputs.message);
    const segments = m.segments.map((s) => ({
      name: s.name,
      fields: Array.from({ length: Math.max(0, s.length - 1) }, (_, i) => valueJson(s.field(i + 1))),
    }));
    return {
      outputs: {
        output: {
          message_type: m.messageType,
          trigger_event: m.triggerEvent,
          control_id: m.controlId,
          version: m.version,
          sending_application: m.sendingApplication.text,
          sending_facility: m.sendingFacility.text,
          segments,
        },
      },
    };
  },
});

export const hl7Ack = defineNode({
  id: "hl7.ack",
  name: "HL7 ACK",
  category: "healthcare",
  description: "Builds the acknowledgment for a message (original AA/AE/AR or enhanced CA/CE/CR), shaped for the message's HL7 version.",
  keywords: ["hl7", "v2", "ack", "acknowledgment", "nak", "msa"],
  inputs: MESSAGE_IN,
  outputs: [{ name: "ack", type: "text" }],
  config: z
    .object({
      code: z.enum(["AA", "AE", "AR", "CA", "CE", "CR"]).default("AA"),
      text: z.string().max(500).optional().describe("Text for MSA-3 (or ERR-8 from v2.7)"),
    })
    .strict(),
  documentation: {
    summary: "Sender and receiver are swapped in MSH; MSA echoes the control id.",
    example: { config: { code: "AE", text: "Unknown patient" } },
  },
  run: async (ctx) => ({ outputs: { ack: buildAck(parsed(ctx.inputs.message), ctx.config.code as AckCode, ctx.config.text).toString() } }),
});

/** The PID-3 identifier values (CX.1) of a message: who it is about, for the consent check. */
function pidIdentifiers(message: Hl7Message): string[] {
  const pid = message.segment("PID");
  if (!pid) return [];
  return pid
    .field(3)
    .repetitions()
    .map((r) => r.comp(1).value)
    .filter((v) => v !== "");
}

/** HL7 v2 ER7 text's media type, as HL7's own registrations name it. */
const HL7_MEDIA_TYPE = "x-application/hl7-v2+er7";

/** Codes that mean the receiver took responsibility for the message. */
const ACCEPT_CODES = new Set(["AA", "CA"]);

export const hl7Send = defineNode({
  id: "hl7.send",
  name: "HL7 send (MLLP)",
  category: "healthcare",
  description:
    "Sends an HL7 v2 message over MLLP to the endpoint of an mllp connector and waits for its ACK, or (destination_id) hands it to a destination's durable queue, which delivers in order per patient, retries for days and dead-letters. By default a rejecting ACK (AE/AR/CE/CR) fails the node with HL7_NACK so the error policy applies.",
  keywords: ["hl7", "v2", "mllp", "send", "outbound", "interface", "ack", "tcp"],
  inputs: MESSAGE_IN,
  outputs: [
    { name: "output", type: "json", description: "{ack, ack_code, control_id, text}" },
    CONSENT_DENIED_PORT,
    { name: "queued", type: "json", description: "With destination_id: {destination_id, delivery_id, duplicate, control_id}" },
  ],
  config: z
    .object({
      connector_id: z.string().min(1).optional().describe("An mllp connector: mllp://host:port or mllps://host:port"),
      destination_id: DestinationIdConfig.optional(),
      consent: OutboundConsentConfig.optional().describe("Consent check before sending; the patient is found by the PID-3 identifiers unless named (docs/consent.md)"),
      timeout_ms: z.number().int().min(100).max(120_000).default(10_000).describe("How long to wait for the connection and the ACK"),
      require_accept: z.boolean().default(true).describe("Fail with HL7_NACK unless MSA-1 is AA or CA"),
    })
    .strict()
    .refine((c) => !!c.connector_id !== !!c.destination_id, "Set exactly one of connector_id and destination_id"),
  documentation: {
    summary:
      "Test mode reports the message as a would-write to mllp:<connector_id> and sends nothing. Errors: HL7_NACK (rejecting ACK), HL7_SEND_TIMEOUT (no ACK in time), HL7_SEND_FAILED (connection refused or closed), HL7_ACK_INVALID (answer is not an ACK), DESTINATION_NOT_ALLOWED (host refused by the outbound guard; see OUTBOUND_ALLOW).",
    example: {
      config: { connector_id: "6f1c…", timeout_ms: 5000 },
      inputs: { message: "MSH|^~\\&|CDIS|CDIS|RIS|HOSP|20260101||ADT^A08|123|P|2.5.1\rPID|1||42^^^HOSP^MR||Doe^Jane" },
      outputs: { output: { ack: "MSH|^~\\&|RIS|HOSP|CDIS|CDIS|...\rMSA|AA|123", ack_code: "AA", control_id: "123", text: "" } },
    },
  },
  run: async (ctx) => {
    const message = parsed(ctx.inputs.message);
    const text = message.toString();
    const { connector_id: connectorId, destination_id: destinationId } = ctx.config;
    const identifiers = pidIdentifiers(message);
    if (destinationId) {
      const denied = await outboundConsentGate(ctx, ctx.config.consent, `destination:${destinationId}`, undefined, { input: ctx.inputs.message, subjects: { identifiers } });
      if (denied) return { outputs: denied };
      // One patient's messages keep their order; the first PID-3 identifier names the patient.
      const queued = await queueMessage(ctx, destinationId, { body: text, content_type: HL7_MEDIA_TYPE, label: `${message.messageType}^${message.triggerEvent}`, ...(identifiers[0] ? { key: identifiers[0] } : {}) });
      return { outputs: { queued: { ...queued, control_id: message.controlId } } };
    }
    if (!connectorId) throw new ApiError(400, "INVALID_CONFIG", "Set connector_id or destination_id");
    // Resolved in test mode too: an unknown (or another organization's) connector fails either way.
    parseMllpEndpoint(await ctx.services.connectors.endpoint(connectorId));
    const denied = await outboundConsentGate(ctx, ctx.config.consent, `mllp:${connectorId}`, undefined, { input: ctx.inputs.message, subjects: { identifiers } });
    if (denied) return { outputs: denied };
    if (ctx.testMode) {
      ctx.wouldWrite(`mllp:${connectorId}`, text);
      return { outputs: { output: { ack: null, ack_code: null, control_id: message.controlId, text: "test mode: not sent" } } };
    }
    const raw = await ctx.services.connectors.exchange(connectorId, text, { timeoutMs: ctx.config.timeout_ms, signal: ctx.signal });
    let reading: AckReading;
    try {
      reading = readAck(raw);
    } catch (err) {
      if (err instanceof Hl7ParseError) throw new ApiError(502, "HL7_ACK_INVALID", `The receiver answered with something that is not HL7: ${err.message}`);
      throw new ApiError(502, "HL7_ACK_INVALID", err instanceof Error ? err.message : String(err));
    }
    const { code, reason } = reading;
    const output = { ack: raw, ack_code: code, control_id: reading.controlId, text: reason };
    if (reading.controlId !== message.controlId) ctx.log("warn", `ACK control id ${reading.controlId} does not match MSH-10 ${message.controlId}`);
    if (ctx.config.require_accept && !ACCEPT_CODES.has(code)) {
      throw new ApiError(502, "HL7_NACK", `The receiver answered ${code || "without an ACK code"}${reason ? `: ${reason}` : ""}`);
    }
    return { outputs: { output } };
  },
});

export const HL7_NODES = [hl7InboundTrigger, hl7ToFhir, hl7FromFhir, hl7Parse, hl7Ack, hl7Send];
