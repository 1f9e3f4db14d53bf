// Bindings and variables the Worker receives (see wrangler.toml).
import type { Conversation } from "../features/agents/conversation";
import type { ExecutionRunner } from "../features/pipelines/execution-runner";
import type { MessageRouter } from "../features/inbound/message-router";
import type { ExportJob } from "../features/export/export-job";
import type { OrgGate } from "../features/tenancy/org-gate";
import type { StepSession } from "../features/pipelines/step-session";

export interface Env {
  DB: D1Database;
  BLOBS: R2Bucket;
  ORG_GATE: DurableObjectNamespace<OrgGate>;
  CONVERSATIONS: DurableObjectNamespace<Conversation>;
  MESSAGE_ROUTER: DurableObjectNamespace<MessageRouter>;
  EXPORT_JOB: DurableObjectNamespace<ExportJob>;
  LIMIT_API_PER_MINUTE?: string;
  LIMIT_AGENT_CHAT_PER_MINUTE?: string;
  LIMIT_COPILOT_PER_MINUTE?: string;
  LIMIT_CONCURRENT_EXECUTIONS?: string;
  LIMIT_CONCURRENT_EXPORTS?: string;
  /** Per client IP per minute, for requests no organization's bucket counts (default 300). */
  LIMIT_PUBLIC_PER_MINUTE?: string;
  MAX_BODY_BYTES?: string;
  /** Workers AI; absent locally (it has no simulator). */
  AI?: Ai;
  /** An OpenAI-compatible model endpoint for every org (README, "Agents and models"). */
  LLM_BASE_URL?: string;
  LLM_API_KEY?: string;
  /** Comma-separated model names served at LLM_BASE_URL. */
  LLM_MODELS?: string;
  LLM_CONTEXT_WINDOW?: string;
  /** Secret: key material for connector credentials (AES-GCM). Required outside DEV_MODE. */
  CONNECTOR_ENCRYPTION_KEY?: string;
  /** "true" only for npm start and tests: allows a fixed development connector key. */
  DEV_MODE?: string;
  EXECUTION_RUNNER: DurableObjectNamespace<ExecutionRunner>;
  STEP_SESSION: DurableObjectNamespace<StepSession>;
  /** Hours a completed Bulk Data export stays downloadable (default 24). */
  EXPORT_TTL_HOURS?: string;
  /** Characters of JSON an async execution's or step session's state may take (default 32 Mi). */
  MAX_RUN_STATE_CHARS?: string;
  /** Non-public destinations outbound calls may reach (CIDRs, host names, optional ports); README, "Outbound calls". */
  OUTBOUND_ALLOW?: string;
  /** Origin (and optional path prefix) clients reach the service at; every absolute URL starts with it. Required outside DEV_MODE. */
  PUBLIC_BASE_URL?: string;
}
