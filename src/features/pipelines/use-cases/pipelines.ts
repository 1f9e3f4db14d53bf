// Pipeline management: CRUD with kept versions (each definition checked against the node
// catalog and the outbound policy), deploy/undeploy, and the webhook trigger.
import type { z } from "@hono/zod-openapi";
import type { OrgData } from "../../../platform/org-data";
import type { Env } from "../../../platform/env";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import { execute } from "../../../main/wiring";
import type { Definition } from "../definition";
import type { ExecutionResponse } from "../execution-service";
import { type PipelineInput, PipelineStore } from "../pipeline-store";
import { registry } from "../registry";
import type { PipelineBody } from "../schemas";
import type { PipelineRow, PipelineVersionRow } from "../tables";
import { checkDefinition } from "../validate-definition";
import { webhookInputs, webhookTrigger } from "../webhook";

type Page<T> = Promise<{ rows: T[]; total: number }>;

const checked = (env: Env, body: z.infer<typeof PipelineBody>): PipelineInput => ({
  name: body.name,
  description: body.description,
  definition: checkDefinition(body.definition, registry, outboundPolicyOf(env)).definition,
});

export function listPipelines(data: OrgData, orgId: string, limit: number, offset: number): Page<PipelineRow> {
  const { db } = data;
  return new PipelineStore(db).list(orgId, limit, offset);
}

export function createPipeline(data: OrgData, orgId: string, body: z.infer<typeof PipelineBody>): Promise<PipelineRow> {
  const { db, env } = data;
  return new PipelineStore(db).create(orgId, checked(env, body));
}

export function getPipeline(data: OrgData, orgId: string, id: string): Promise<PipelineRow> {
  const { db } = data;
  return new PipelineStore(db).get(orgId, id);
}

/** A changed definition becomes a new version. */
export function updatePipeline(data: OrgData, orgId: string, id: string, body: z.infer<typeof PipelineBody>): Promise<PipelineRow> {
  const { db, env } = data;
  return new PipelineStore(db).update(orgId, id, checked(env, body));
}

/** 409 PIPELINE_DEPLOYED while deployed. */
export function deletePipeline(data: OrgData, orgId: string, id: string): Promise<void> {
  const { db } = data;
  return new PipelineStore(db).delete(orgId, id);
}

export function deployPipeline(data: OrgData, orgId: string, id: string): Promise<PipelineRow> {
  const { db } = data;
  return new PipelineStore(db).deploy(orgId, id);
}

export function undeployPipeline(data: OrgData, orgId: string, id: string): Promise<PipelineRow> {
  const { db } = data;
  return new PipelineStore(db).undeploy(orgId, id);
}

export function listPipelineVersions(data: OrgData, orgId: string, id: string, limit: number, offset: number): Page<PipelineVersionRow> {
  const { db } = data;
  return new PipelineStore(db).listVersions(orgId, id, limit, offset);
}

export function getPipelineVersion(data: OrgData, orgId: string, id: string, version: number): Promise<PipelineVersionRow> {
  const { db } = data;
  return new PipelineStore(db).getVersion(orgId, id, version);
}

export interface WebhookDelivery {
  /** The webhook trigger node to start; default: the first. */
  nodeId?: string;
  /** Run to the end before answering, instead of async. */
  wait: boolean;
  body: string;
  contentType?: string;
  /** Makes a redelivery start no second execution. */
  idempotencyKey?: string;
  concurrencyLimit: number;
}

/** Starts the deployed version's webhook trigger with the delivery's JSON body. */
export async function triggerWebhook(data: OrgData, orgId: string, pipelineId: string, delivery: WebhookDelivery): Promise<ExecutionResponse> {
  const { db } = data;
  const store = new PipelineStore(db);
  const row = await store.get(orgId, pipelineId);
  const definition = row.deployedVersion === row.version ? row.definition : (await store.getVersion(orgId, pipelineId, row.deployedVersion ?? row.version)).definition;
  const hook = webhookTrigger(definition as Definition, delivery.nodeId);
  return execute(data, orgId, {
    pipelineId,
    inputs: webhookInputs(delivery.body, delivery.contentType, new Date()),
    async: !delivery.wait,
    testMode: false,
    trigger: { kind: "webhook", nodeId: hook.id },
    concurrencyLimit: delivery.concurrencyLimit,
    idempotencyKey: delivery.idempotencyKey,
  });
}
