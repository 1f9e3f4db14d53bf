// The one seam between pipeline nodes and the rest of the service: the FHIR
// store, resource validation, connectors, outbound HTTP and the org's context the
// ai nodes build their agents' services from (agents run pipelines in turn, so
// pipelines name no agent type: the agents feature adds `agents` to the context).
import type { Env } from "../../platform/env";
import type { OrgContext } from "../../platform/org-context";
import type { OrgData } from "../../platform/org-data";
import type { Principal } from "../tenancy";
import { type ConnectorClient, connectorClient } from "../connectors";
import { ApiError, type OperationOutcome } from "../../platform/errors";
import { type FhirExtensions, fhirStoreFor } from "../fhir";
import { outboundFetch } from "../../platform/outbound/fetch";
import type { FhirPort, Resource } from "../fhir";
import { FileIndex } from "./file-index";
import { type NodeFiles, nodeFiles } from "./node-files";
import { type ConsentDecider, consentDecider } from "../consent";
import { type DestinationSettings, destinationSettings, enqueue, type OutboundMessage } from "../destinations";

export interface PipelineServices {
  /** The organization's FHIR store; in test mode writes throw (nodes report would-write instead). */
  fhir(): FhirPort;
  /** Validates a resource against the store's profiles; an OperationOutcome lists the issues. */
  validateResource(resource: Resource): Promise<OperationOutcome>;
  connectors: ConnectorClient;
  /** The organization's files in R2 (DICOM instances, X12 files): nodes pass keys on, not bytes. */
  files: NodeFiles;
  /** Outbound HTTP for nodes, through the outbound guard; uses globalThis.fetch at call time so tests can mock it. */
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
  /** Consent decisions over the org's Consents and policy (consent nodes, outbound checks). */
  consent: ConsentDecider;
  /** The org's destinations (docs/destinations.md): queued sends hand their messages to a destination's durable queue. */
  destinations: NodeDestinations;
  /** Who the run acts as, in which org: the ai nodes take their agents' services from it (`data.agents`), the device nodes the org's data. */
  ai(): NodeActor;
}

export interface NodeDestinations {
  /** Hands messages to the destination's queue; a delivery id given twice is queued once. Blocked in test mode. */
  enqueue(destinationId: string, messages: OutboundMessage[]): Promise<{ ids: string[]; duplicates: string[] }>;
  /** Where the destination delivers and its HL7 header settings; 404 DESTINATION_NOT_FOUND when it is not the org's. */
  settings(destinationId: string): Promise<DestinationSettings>;
}

/** The pipeline's principal in its org's context, and whether the run is in test mode. */
export interface NodeActor {
  env: Env;
  data: OrgContext;
  principal: Principal;
  testMode: boolean;
}

/** What the FHIR store offers pipelines: its port and, when it has one, a validator. */
export interface FhirBinding {
  port: FhirPort;
  validate?(resource: Resource): Promise<OperationOutcome>;
}

/** `extensions`: what implementation guides add to the organization's store (the composition root's). */
export type FhirBindingFactory = (data: OrgData, principal: Principal, extensions: FhirExtensions) => FhirBinding;


/** The organization's FHIR store, acting as the pipeline's principal. */
const storeBinding: FhirBindingFactory = (data, principal, extensions) => {
  const store = fhirStoreFor(data, principal, { extensions });
  return { port: store, validate: async (resource) => (await store.validate(resource)) as unknown as OperationOutcome };
};

let fhirBindingFor: FhirBindingFactory = storeBinding;

/**
 * Tests (and only tests) install an in-memory store here; returns the one it replaces, to put
 * back. Without an argument, the organization's FHIR store again.
 */
export function useFhirBinding(factory: FhirBindingFactory = storeBinding): FhirBindingFactory {
  const previous = fhirBindingFor;
  fhirBindingFor = factory;
  return previous;
}

/** The principal pipelines act as when no request carries one (async runs, cron, events). */
export function pipelinePrincipal(orgId: string, pipelineId: string): Principal {
  return { orgId, keyId: `pipeline:${pipelineId}`, keyName: "pipeline", role: "service", scopes: [] };
}

/** The pipeline a pipeline principal runs for; undefined for any other principal. */
export const pipelineOf = (principal: Principal): string | undefined => (principal.keyId.startsWith("pipeline:") ? principal.keyId.slice("pipeline:".length) : undefined);

export type PipelineServicesFactory = (ctx: OrgContext, principal: Principal, testMode: boolean) => PipelineServices;

export function buildPipelineServices(ctx: OrgContext, principal: Principal, testMode: boolean): PipelineServices {
  const { env } = ctx;
  let binding: FhirBinding | undefined;
  const fhirBinding = () => {
    binding ??= fhirBindingFor(ctx, principal, ctx.fhirExtensions);
    return binding;
  };
  return {
    fhir: () => (testMode ? readOnly(fhirBinding().port) : fhirBinding().port),
    validateResource: async (resource) => {
      const b = fhirBinding();
      if (!b.validate) throw new ApiError(503, "FHIR_VALIDATION_UNAVAILABLE", "The FHIR store in this build has no validator");
      return b.validate(resource);
    },
    connectors: connectorClient(ctx, testMode),
    files: nodeFiles(ctx.blobs, principal.orgId, testMode, (file, origin) => new FileIndex(ctx.db).record(principal.orgId, file, { pipelineId: pipelineOf(principal), ...origin })),
    fetch: outboundFetch(env),
    consent: consentDecider(ctx, () => fhirBinding().port),
    destinations: {
      enqueue: (id, messages) => {
        if (testMode) throw new ApiError(409, "TEST_MODE_WRITE_BLOCKED", "Test mode blocks queueing messages to destinations");
        return enqueue(ctx, id, messages);
      },
      settings: (id) => destinationSettings(ctx, id),
    },
    ai: () => ({ env, data: ctx, principal, testMode }),
  };
}

/** Defence in depth for test mode: a node that forgot to check testMode still cannot write. */
function readOnly(port: FhirPort): FhirPort {
  const blocked = (): never => {
    throw new ApiError(409, "TEST_MODE_WRITE_BLOCKED", "Writes to the FHIR store are blocked in test mode");
  };
  return {
    read: (t, id) => port.read(t, id),
    search: (t, q) => port.search(t, q),
    create: blocked,
    update: blocked,
    conditionalUpdate: blocked,
    delete: blocked,
    batch: blocked,
  };
}
