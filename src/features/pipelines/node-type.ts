// The contract every pipeline node implements, and what the engine hands it.
// Node families (control, data, healthcare, output; later HL7, DICOM, X12, AI...)
// are plain modules exporting NodeType values; the engine knows only this file.
import type { z } from "zod";
import type { PipelineServices } from "./services";

export const CATEGORIES = ["healthcare", "ai", "data", "output", "control", "claims"] as const;
export type Category = (typeof CATEGORIES)[number];

/** Port types; "any" connects to everything. Later families add their own strings (e.g. hl7-message). */
export type PortType = "trigger-event" | "fhir-bundle" | "fhir-resource" | "text" | "json" | "any" | (string & {});

export interface PortDef {
  name: string;
  type: PortType;
  description?: string;
  /** Input ports only: collects every connected value into an array (fan-in). */
  multiple?: boolean;
}

/** How an execution was started; trigger nodes use it to decide whether they fire. */
export interface TriggerInfo {
  kind: "manual" | "webhook" | "schedule" | "event" | "retry" | "step";
  /** When set, only this trigger node fires (webhook, schedule, event). */
  nodeId?: string;
}

export interface TriggerIndexEntry {
  match: string;
  attributes: Record<string, string>;
}

export interface NodeLog {
  at: string;
  level: "debug" | "info" | "warn" | "error";
  message: string;
}

export interface NodeContext<C> {
  nodeId: string;
  config: C;
  /** Values on the node's input ports; trigger nodes receive the execution inputs in `inputs.event`. */
  inputs: Record<string, unknown>;
  orgId: string;
  executionId: string;
  testMode: boolean;
  trigger: TriggerInfo;
  services: PipelineServices;
  signal: AbortSignal;
  /** Set when a node that asked to wait is run again after its wake time. */
  resumed: boolean;
  log(level: NodeLog["level"], message: string): void;
  /** Test mode: record what the node would have written instead of writing it. */
  wouldWrite(target: string, payload: unknown): void;
  /** Runs a nested definition (for-each bodies) with the same services and mode. */
  runBody(body: DefinitionLike, inputs: unknown): Promise<{ outputs: Record<string, unknown> }>;
}

export interface DefinitionLike {
  nodes: { id: string; type: string; config?: Record<string, unknown> }[];
  connections: { from: { node: string; port: string }; to: { node: string; port: string } }[];
}

/** What a node run answers: values on the ports it emits (absent ports are "not taken"). */
export type NodeRunResult =
  | { outputs: Record<string, unknown>; executionOutput?: unknown }
  | { waitUntil: number };

export interface NodeDocumentation {
  summary: string;
  example: { config: Record<string, unknown>; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> };
}

export interface NodeType<C = unknown> {
  id: string;
  name: string;
  category: Category;
  description: string;
  keywords: string[];
  inputs: PortDef[];
  outputs: PortDef[];
  /** Ports that depend on configuration (switch cases); defaults to `outputs`. */
  outputsFor?(config: C): PortDef[];
  config: z.ZodType<C>;
  documentation: NodeDocumentation;
  /**
   * Trigger nodes start executions. Schedule and event triggers say how a deployed
   * pipeline is found: `index` gives the cron pattern or event type (`match`) and the
   * event attributes that must all be equal.
   */
  trigger?: { kind: "manual" | "webhook" | "schedule" | "event"; index?(config: C): TriggerIndexEntry };
  /** Loads what `validateConfig` needs (the code node's sandbox); awaited before a definition is saved. */
  prepare?(): Promise<void>;
  /** Extra checks of a definition that the config schema cannot express (e.g. nested bodies). */
  validateConfig?(config: C): { path: string; message: string }[];
  /** Outbound URLs fixed by the config, checked against the outbound guard when the pipeline is saved. */
  destinations?(config: C): { path: string; url: string }[];
  /** Definitions nested in the config (for-each bodies), validated with the same rules. */
  nestedDefinitions?(config: C): { path: string; definition: unknown }[];
  run(ctx: NodeContext<C>): Promise<NodeRunResult>;
}

/** Loosens a typed node for storage in the registry without losing checks at the definition site. */
export function defineNode<C>(node: NodeType<C>): NodeType<unknown> {
  return node as unknown as NodeType<unknown>;
}
