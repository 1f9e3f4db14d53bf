// Pipeline management: CRUD with kept versions (each definition checked against the node
// catalog and the outbound policy), deploy/undeploy, and the webhook trigger.
import type { z } from "@hono/zod-openapi";
import type { OrgContext } from "../../../platform/org-context";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import type { Definition } from "../definition";
import type { ExecutionResponse } from "../execution-service";
import { type PipelineInput, PipelineStore } from "../pipeline-store";
import type { PipelineBody } from "../schemas";
import type { PipelineRow, PipelineVersionRow } from "../tables";
import { checkDefinition } from "../validate-definition";
import { webhookInputs, webhookTrigger } from "../webhook";

type Page<T> = Promise<{ rows: T[]; total: number }>;

const checked = async (ctx: OrgContext, body: z.infer<typeof PipelineBody>): Promise<PipelineInput> => {
  await ctx.nodes.prepare();
  return { name: body.name, description: body.description, definition: checkDefinition(body.definition, ctx.nodes, outboundPolicyOf(ctx.env)).definition };
};

export function listPipelines(ctx: OrgContext, limit: number, offset: number): Page<PipelineRow> {
  const { db, orgId } = ctx;
  return new PipelineStore(db).list(orgId, limit, offset);
}

export async function createPipeline(ctx: OrgContext, body: z.infer<typeof PipelineBody>): Promise<PipelineRow> {
  const { db, orgId } = ctx;
  return new PipelineStore(db).create(orgId, await checked(ctx, body));
}

export function getPipeline(ctx: OrgContext, id: string): Promise<PipelineRow> {
  const { db, orgId } = ctx;
  return new PipelineStore(db).get(orgId, id);
}

/** A changed definition becomes a new version. */
export async function updatePipeline(ctx: OrgContext, id: string, body: z.infer<typeof PipelineBody>): Promise<PipelineRow> {
  const { db, orgId } = ctx;
  return new PipelineStore(db).update(orgId, id, await checked(ctx, body));
}

/** 409 PIPELINE_DEPLOYED while deployed. */
export function deletePipeline(ctx: OrgContext, id: string): Promise<void> {
  const { db, orgId } = ctx;
  return new PipelineStore(db).delete(orgId, id);
}

export function deployPipeline(ctx: OrgContext, id: string): Promise<PipelineRow> {
  const { db, orgId } = ctx;
  return new PipelineStore(db).deploy(orgId, id, ctx.nodes);
}

export function undeployPipeline(ctx: OrgContext, id: string): Promise<PipelineRow> {
  const { db, orgId } = ctx;
  return new PipelineStore(db).undeploy(orgId, id);
}

export function listPipelineVersions(ctx: OrgContext, id: string, limit: number, offset: number): Page<PipelineVersionRow> {
  const { db, orgId } = ctx;
  return new PipelineStore(db).listVersions(orgId, id, limit, offset);
}

export function getPipelineVersion(ctx: OrgContext, id: string, version: number): Promise<PipelineVersionRow> {
  const { db, orgId } = ctx;
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
export async function triggerWebhook(ctx: OrgContext, pipelineId: string, delivery: WebhookDelivery): Promise<ExecutionResponse> {
  const { db, orgId } = ctx;
  const store = new PipelineStore(db);
  const row = await store.get(orgId, pipelineId);
  const definition = row.deployedVersion === row.version ? row.definition : (await store.getVersion(orgId, pipelineId, row.deployedVersion ?? row.version)).definition;
  const hook = webhookTrigger(definition as Definition, delivery.nodeId);
  return ctx.execute({
    pipelineId,
    inputs: webhookInputs(delivery.body, delivery.contentType, new Date()),
    async: !delivery.wait,
    testMode: false,
    trigger: { kind: "webhook", nodeId: hook.id },
    concurrencyLimit: delivery.concurrencyLimit,
    idempotencyKey: delivery.idempotencyKey,
  });
}
