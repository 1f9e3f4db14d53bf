// Bindings and variables the Worker receives (see wrangler.toml).
import type { MessageRouter } from "../durable-objects/message-router";
import type { OrgGate } from "../durable-objects/org-gate";

export interface Env {
  DB: D1Database;
  BLOBS: R2Bucket;
  ORG_GATE: DurableObjectNamespace<OrgGate>;
  MESSAGE_ROUTER: DurableObjectNamespace<MessageRouter>;
  LIMIT_API_PER_MINUTE?: string;
  LIMIT_AGENT_CHAT_PER_MINUTE?: string;
  LIMIT_COPILOT_PER_MINUTE?: string;
  LIMIT_CONCURRENT_EXECUTIONS?: string;
  LIMIT_CONCURRENT_EXPORTS?: string;
  MAX_BODY_BYTES?: string;
}
