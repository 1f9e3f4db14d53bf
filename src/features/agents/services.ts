// The one seam between agents and the rest of the service: the FHIR store,
// pipelines, custom tools, the organization's model endpoints, vitals and audit,
// all acting as the caller's principal. Pipelines run through the org context's
// `execute` (wired in src/main/wiring.ts, where tests also replace the whole factory
// with fakes), since pipelines run agents in turn.
import type { OrgContext } from "../../platform/org-context";
import type { JSONSchema7 } from "ai";
import type { Principal } from "../tenancy";
import type { ToolRow } from "./tools/custom/tables";
import { fhirStoreFor } from "../fhir";
import type { FhirPort } from "../fhir";
import { limitsOfOrg } from "../tenancy";
import { invokeTool } from "./tools/custom/invoke";
import { ToolStore } from "./tools/custom/store";
import { type AgentAuditEvent, auditEventResource } from "./audit";
import { connectorModelEndpoints } from "./connector-endpoints";
import { type ModelEndpoint, envModelEndpoint } from "./models";
import { settingsOf } from "../../platform/settings";
import { guardedFetch } from "../../platform/outbound/fetch";
import { outboundPolicyOf, withAllowedOrigin } from "../../platform/outbound/policy";

/** A custom tool record from /api/tools, ready to call. */
export interface CustomTool {
  id: string;
  name: string;
  description: string;
  parameters: JSONSchema7;
  /** Runs the tool's implementation (an HTTP call through a connector, a deployed pipeline, or sandboxed code). */
  execute(args: unknown): Promise<unknown>;
}

export interface VitalsQuery {
  patientId: string;
  metric: string;
  days: number;
}

export interface AgentServices {
  /** The caller's organization's FHIR store. */
  fhir(): FhirPort;
  /** Runs a deployed pipeline synchronously and answers its outputs. */
  runPipeline(pipelineId: string, inputs: Record<string, unknown>): Promise<unknown>;
  listCustomTools(): Promise<CustomTool[]>;
  /** A custom tool by id or name; undefined when the org has none such. */
  customTool(idOrName: string): Promise<CustomTool | undefined>;
  /** OpenAI-compatible endpoints the org may use (deployment env and org connectors). */
  modelEndpoints(): Promise<ModelEndpoint[]>;
  /** The vitals query of spec 4.9, when the devices module is present. */
  vitals?: (q: VitalsQuery) => Promise<unknown>;
  /** Records that an agent acted (an AuditEvent naming the agent). */
  audit(event: AgentAuditEvent): Promise<void>;
}

/** The most custom tools offered to one agent run. */
const MAX_CUSTOM_TOOLS = 100;

export interface AgentServiceOptions {
  /**
   * An ai node in a test-mode execution: tools write nothing outside. Custom HTTP tools may
   * only read (GET), pipelines (tools and run_pipeline) run in test mode too.
   */
  testMode?: boolean;
}

export function agentServices(ctx: OrgContext, principal: Principal, options: AgentServiceOptions | undefined): AgentServices {
  const { env } = ctx;
  const testMode = options?.testMode ?? false;
  const store = fhirStoreFor(ctx, principal, { extensions: ctx.fhirExtensions });
  const fhir = (): FhirPort => store;
  const orgId = principal.orgId;
  const tools = () => new ToolStore(ctx.db);
  const asCustomTool = (row: ToolRow): CustomTool => ({
    id: row.id,
    name: row.name,
    description: row.description,
    parameters: row.parameters as JSONSchema7,
    execute: async (args) => {
      const limit = (await limitsOfOrg(ctx)).concurrentExecutions;
      const out = await invokeTool(ctx, principal, row, (args ?? {}) as Record<string, unknown>, limit, testMode);
      if (!out.ok) throw new Error(`Tool ${row.name} failed: ${JSON.stringify(out.result)}`);
      return out.result;
    },
  });
  return {
    fhir,
    runPipeline: async (pipelineId, inputs) => {
      const limit = (await limitsOfOrg(ctx)).concurrentExecutions;
      const res = await ctx.execute({ pipelineId, inputs, async: false, testMode, trigger: { kind: "manual" }, concurrencyLimit: limit });
      if (res.status !== "completed") throw new Error(`Pipeline ${pipelineId} ${res.status}: ${res.error?.message ?? "no outputs"}`);
      return res.outputs;
    },
    listCustomTools: async () => (await tools().list(orgId, MAX_CUSTOM_TOOLS, 0)).rows.map(asCustomTool),
    customTool: async (idOrName) => {
      const store = tools();
      const row = (await store.byName(orgId, idOrName)) ?? (await store.get(orgId, idOrName).catch(() => undefined));
      return row ? asCustomTool(row) : undefined;
    },
    modelEndpoints: async () => {
      const deployment = envModelEndpoint(settingsOf(env));
      // The deployment's own endpoint (often a local model server) is allowed, for itself only.
      const guarded = deployment && { ...deployment, fetch: guardedFetch({ policy: withAllowedOrigin(outboundPolicyOf(env), deployment.baseURL) }) };
      return [...(guarded ? [guarded] : []), ...(await connectorModelEndpoints(ctx))];
    },
    // AuditEvents are FHIR resources in the org's store, written by the service (never by clients).
    audit: (event) => store.writeAuditEvent(auditEventResource(event)),
  };
}

export type AgentServicesFactory = (ctx: OrgContext, principal: Principal, options?: AgentServiceOptions) => AgentServices;
