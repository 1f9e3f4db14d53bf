// FHIR to X12: a Claim (837P/837I, or a 278 when its use is preauthorization), a
// CoverageEligibilityRequest (270) or a claim-status Task (276) written as an interchange.
// Referenced resources come from the input Bundle and, for what it lacks, the store.
import { z } from "zod";
import type { Bundle, FhirPort, Resource } from "../../../features/fhir";
import { defineNode } from "../../../features/pipelines";
import { ApiError } from "../../../platform/errors";
import { envelope, type SetToWrite, writeX12 } from "../build";
import { bundleLookup, type Lookup } from "../fhir/from-fhir";
import { paymentTo835 } from "../fhir/to-835";
import { claimTo837 } from "../fhir/to-837";
import { eligibilityTo270, preauthTo278, statusTaskTo276 } from "../fhir/to-requests";
import { rethrowX12 } from "./input";

const WRITABLE = ["Claim", "CoverageEligibilityRequest", "Task", "PaymentReconciliation"];
const Party = z.object({ name: z.string().min(1).max(60), id: z.string().min(1).max(80) }).strict();

const Config = z
  .object({
    sender: z.string().min(1).max(15).describe("ISA06 and GS02: your id with the receiver"),
    receiver: z.string().min(1).max(15).describe("ISA08 and GS03: the payer's or clearinghouse's id"),
    sender_qualifier: z.string().length(2).default("ZZ"),
    receiver_qualifier: z.string().length(2).default("ZZ"),
    control_number: z.number().int().min(1).max(999_999_999).optional().describe("ISA13 (and GS06); default derived from the execution id, stable across retries"),
    usage: z.enum(["P", "T"]).default("T").describe("ISA15: P production, T test"),
    ack_requested: z.boolean().default(false).describe("ISA14: ask the receiver for a TA1"),
    submitter: Party.extend({ contact_name: z.string().min(1).max(60), phone: z.string().max(20).optional(), email: z.string().max(80).optional() }).optional().describe("837: loop 1000A submitter"),
    receiver_party: Party.optional().describe("837: loop 1000B receiver (name and id)"),
    line_breaks: z.boolean().default(false).describe("Write a line break after each segment"),
  })
  .strict();
type Config = z.infer<typeof Config>;

/** Every relative reference ("Type/id") inside a resource. */
function relativeReferences(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) relativeReferences(v, into);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "reference" && typeof v === "string" && /^[A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64}$/.test(v)) into.push(v);
      else relativeReferences(v, into);
    }
  }
  return into;
}

/** Referenced resources ("Type/id") the input lacks, read from the store, and theirs in turn (three levels). */
async function withStored(fhir: FhirPort, start: Resource, inBundle: Lookup): Promise<Lookup> {
  const fetched = new Map<string, Resource>();
  const lookup: Lookup = (ref) => inBundle(ref) ?? fetched.get(ref);
  let frontier: Resource[] = [start];
  for (let depth = 0; depth < 3 && frontier.length; depth++) {
    const refs = new Set<string>();
    for (const r of frontier) for (const ref of relativeReferences(r)) if (!lookup(ref)) refs.add(ref);
    frontier = [];
    for (const ref of refs) {
      const [type, id] = ref.split("/") as [string, string];
      const found = await fhir.read(type, id).catch((e: unknown) => {
        if (e instanceof ApiError && (e.status === 404 || e.status === 410)) return undefined;
        throw e;
      });
      if (found) {
        fetched.set(ref, found);
        frontier.push(found);
      }
    }
  }
  return lookup;
}

/** The resource to write: the input itself, or the Bundle's first writable entry. */
function focusOf(value: unknown): { resource: Resource; bundle?: Bundle } {
  const r = value as Resource | undefined;
  if (r?.resourceType === "Bundle") {
    const bundle = r as Bundle;
    const hit = bundle.entry?.find((e) => e.resource && WRITABLE.includes(e.resource.resourceType))?.resource;
    if (!hit) throw new ApiError(400, "X12_INPUT_INVALID", `The Bundle holds no ${WRITABLE.join(", ")} to write as X12`);
    return { resource: hit, bundle };
  }
  if (!r || typeof r !== "object" || !WRITABLE.includes(r.resourceType)) throw new ApiError(400, "X12_INPUT_INVALID", `The resource input must be a ${WRITABLE.join(", ")} or a Bundle holding one`);
  return { resource: r };
}

function setFor(resource: Resource, lookup: Lookup, config: Config): SetToWrite {
  if (resource.resourceType === "CoverageEligibilityRequest") return eligibilityTo270(resource, lookup);
  if (resource.resourceType === "Task") return statusTaskTo276(resource, lookup);
  if (resource.resourceType === "PaymentReconciliation") return paymentTo835(resource, lookup);
  if ((resource as { use?: string }).use === "preauthorization") return preauthTo278(resource, lookup);
  if (!config.submitter || !config.receiver_party) throw new ApiError(400, "X12_CONFIG_INCOMPLETE", "An 837 needs the submitter and receiver_party settings (loops 1000A and 1000B)");
  const { contact_name, ...submitter } = config.submitter;
  return claimTo837(resource, lookup, { submitter: { ...submitter, contactName: contact_name }, receiver: config.receiver_party });
}

/** A control number from the execution id: the same across retries, spread over 1..999999999. */
export function controlFromId(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619) >>> 0;
  return (h % 999_999_999) + 1;
}

export const fhirToX12 = defineNode({
  id: "x12.from_fhir",
  name: "FHIR to X12",
  category: "claims",
  description:
    "Writes a FHIR Claim as an 837P or 837I (by Claim.type), a Claim with use preauthorization as a 278 request, a CoverageEligibilityRequest as a 270, a claim-status Task as a 276 and a PaymentReconciliation (with its ExplanationOfBenefits) as an 835, in a complete interchange (ISA/GS/ST...SE/GE/IEA with control numbers and counts).",
  keywords: ["x12", "edi", "fhir", "837", "835", "270", "276", "278", "claim", "eligibility", "build", "submit"],
  inputs: [{ name: "resource", type: "fhir-resource", description: "The resource, or a Bundle holding it and what it references" }],
  outputs: [{ name: "x12", type: "x12-message" }],
  config: Config,
  documentation: {
    summary:
      "References the input Bundle lacks are read from the organization's store. A value the set cannot do without fails the node with X12_BAD_BUILD_INPUT naming the FHIR element (Claim.provider identifier (NPI)).",
    example: {
      config: { sender: "NWBILLING", receiver: "CASCADEHP", usage: "T", submitter: { name: "NORTHWIND BILLING", id: "NWB001", contact_name: "DANA ROSS", phone: "5555550100" }, receiver_party: { name: "CASCADE HEALTH PLAN", id: "CHP0001" } },
      outputs: { x12: "ISA*00*          *00*          *ZZ*NWBILLING      *ZZ*CASCADEHP      *...~ST*837*0001*005010X222A1~...~IEA*1*...~" },
    },
  },
  run: async (ctx) => {
    const { resource, bundle } = focusOf(ctx.inputs.resource);
    const lookup = await withStored(ctx.services.fhir(), resource, bundle ? bundleLookup(bundle) : () => undefined);
    const c = ctx.config;
    try {
      const set = setFor(resource, lookup, c);
      const ix = envelope([set], {
        sender: c.sender,
        receiver: c.receiver,
        senderQualifier: c.sender_qualifier,
        receiverQualifier: c.receiver_qualifier,
        control: c.control_number ?? controlFromId(ctx.executionId),
        usage: c.usage,
        ackRequested: c.ack_requested ? "1" : "0",
      });
      return { outputs: { x12: writeX12({ interchanges: [ix] }, c.line_breaks ? { separator: "\n" } : {}) } };
    } catch (e) {
      rethrowX12(e);
    }
  },
});
