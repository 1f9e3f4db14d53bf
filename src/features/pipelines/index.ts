// What other features use of pipelines: definitions and their validation against the node
// catalog, the stored pipelines and execution records, and starting runs on service events.
// (Node families implement the NodeType contract in node-type.ts; runs start through the org
// context's `execute`, src/features/pipelines/org-context.ts.)
export { type Definition, DefinitionSchema, MAX_DEFINITION_BYTES, type PipelineNode } from "./definition";
export { ExecutionStore } from "./execution-store";
export { CONSENT_DENIED_PORT, OutboundConsentConfig, outboundConsentGate } from "./nodes/consent-gate";
export { DestinationIdConfig, type QueuedOutput, queueMessage } from "./nodes/queued-send";
export type { NodeType } from "./node-type";
export { PipelineStore } from "./pipeline-store";
export { configJsonSchema, type NodeRegistry, outputPorts } from "./registry";
export { Pipeline, presentPipeline } from "./schemas";
export type { PipelineRow } from "./tables";
export { dispatchToPipelines, eventTriggers, type ServiceEvent, triggerMatches } from "./triggers";
export { getPipeline } from "./use-cases/pipelines";
export { executionsByHour } from "./hourly";
export { checkDefinition } from "./validate-definition";
export { defineNode, type NodeContext, type PortDef } from "./node-type";
export type { PipelineServices } from "./services";
export { NodeFailure } from "./node-failure";
export { evaluate, jsonataExpression } from "./nodes/expression";
export type { NodeFiles, StoredFile } from "./node-files";
