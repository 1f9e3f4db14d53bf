// Bindings and variables the Worker receives (see wrangler.toml).
import type { ExportJob } from "../durable-objects/export-job";
import type { OrgGate } from "../durable-objects/org-gate";

export interface Env {
  DB: D1Database;
  BLOBS: R2Bucket;
  ORG_GATE: DurableObjectNamespace<OrgGate>;
  EXPORT_JOB: DurableObjectNamespace<ExportJob>;
  LIMIT_API_PER_MINUTE?: string;
  LIMIT_AGENT_CHAT_PER_MINUTE?: string;
  LIMIT_COPILOT_PER_MINUTE?: string;
  LIMIT_CONCURRENT_EXECUTIONS?: string;
  LIMIT_CONCURRENT_EXPORTS?: string;
  MAX_BODY_BYTES?: string;
  /** Hours a completed Bulk Data export stays downloadable (default 24). */
  EXPORT_TTL_HOURS?: string;
}
