// Pipelines and their kept versions in D1. A new version is written whenever the
// definition changes; deploy pins the version that triggers and executions run.
import { and, count, desc, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { isUniqueViolation } from "../db/errors";
import { type PipelineRow, type PipelineVersionRow, pipelineTriggers, pipelineVersions, pipelines } from "../db/schema";
import { conflict, notFound } from "../errors";
import { canonicalJson, type Definition } from "./definition";
import { triggerRows } from "./trigger-index";

export interface PipelineInput {
  name: string;
  description: string;
  definition: Definition;
}

export const pipelineNotFound = (id: string) => notFound(`Pipeline ${id} not found`, "PIPELINE_NOT_FOUND");

export class PipelineStore {
  constructor(private readonly db: Database) {}

  async create(orgId: string, input: PipelineInput): Promise<PipelineRow> {
    const now = new Date().toISOString();
    const row: PipelineRow = {
      orgId,
      id: crypto.randomUUID(),
      name: input.name,
      description: input.description,
      status: "active",
      version: 1,
      deployedVersion: null,
      definition: input.definition,
      createdAt: now,
      updatedAt: now,
    };
    await this.db.batch([this.db.insert(pipelines).values(row), this.db.insert(pipelineVersions).values(versionOf(row))]);
    return row;
  }

  async list(orgId: string, limit: number, offset: number) {
    const where = eq(pipelines.orgId, orgId);
    const [rows, totals] = await Promise.all([
      this.db.select().from(pipelines).where(where).orderBy(desc(pipelines.createdAt), desc(pipelines.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(pipelines).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  async get(orgId: string, id: string): Promise<PipelineRow> {
    const row = await this.db.select().from(pipelines).where(and(eq(pipelines.orgId, orgId), eq(pipelines.id, id))).get();
    if (!row) throw pipelineNotFound(id);
    return row;
  }

  /** Saves name, description and definition; the version moves only when the definition changed. */
  async update(orgId: string, id: string, input: PipelineInput): Promise<PipelineRow> {
    const current = await this.get(orgId, id);
    const changed = canonicalJson(current.definition) !== canonicalJson(input.definition);
    const next: PipelineRow = {
      ...current,
      name: input.name,
      description: input.description,
      definition: input.definition,
      version: changed ? current.version + 1 : current.version,
      updatedAt: new Date().toISOString(),
    };
    const guard = and(eq(pipelines.orgId, orgId), eq(pipelines.id, id), eq(pipelines.version, current.version));
    const update = this.db.update(pipelines).set(next).where(guard);
    try {
      if (changed) await this.db.batch([update, this.db.insert(pipelineVersions).values(versionOf(next))]);
      else await update;
    } catch (e) {
      // Another save took this version number first: the caller should reload and retry.
      if (isUniqueViolation(e)) throw conflict("The pipeline was changed concurrently; reload and retry", "PIPELINE_VERSION_CONFLICT");
      throw e;
    }
    return next;
  }

  async delete(orgId: string, id: string): Promise<void> {
    const row = await this.get(orgId, id);
    if (row.status === "deployed") throw conflict("Undeploy the pipeline before deleting it", "PIPELINE_DEPLOYED");
    await this.db.batch([
      this.db.delete(pipelines).where(and(eq(pipelines.orgId, orgId), eq(pipelines.id, id), eq(pipelines.status, "active"))),
      this.db.delete(pipelineVersions).where(and(eq(pipelineVersions.orgId, orgId), eq(pipelineVersions.pipelineId, id))),
      this.db.delete(pipelineTriggers).where(and(eq(pipelineTriggers.orgId, orgId), eq(pipelineTriggers.pipelineId, id))),
    ]);
  }

  /** Any state → deployed at the current version; its schedule and event triggers become live. */
  async deploy(orgId: string, id: string): Promise<PipelineRow> {
    const row = await this.get(orgId, id);
    const next: PipelineRow = { ...row, status: "deployed", deployedVersion: row.version, updatedAt: new Date().toISOString() };
    const triggers = triggerRows(orgId, id, row.definition as Definition);
    await this.db.batch([
      this.db.update(pipelines).set(next).where(and(eq(pipelines.orgId, orgId), eq(pipelines.id, id))),
      this.db.delete(pipelineTriggers).where(and(eq(pipelineTriggers.orgId, orgId), eq(pipelineTriggers.pipelineId, id))),
      ...triggers.map((t) => this.db.insert(pipelineTriggers).values(t)),
    ]);
    return next;
  }

  /** deployed → active; its schedules and event triggers stop at once. */
  async undeploy(orgId: string, id: string): Promise<PipelineRow> {
    const row = await this.get(orgId, id);
    const next: PipelineRow = { ...row, status: "active", deployedVersion: null, updatedAt: new Date().toISOString() };
    await this.db.batch([
      this.db.update(pipelines).set(next).where(and(eq(pipelines.orgId, orgId), eq(pipelines.id, id))),
      this.db.delete(pipelineTriggers).where(and(eq(pipelineTriggers.orgId, orgId), eq(pipelineTriggers.pipelineId, id))),
    ]);
    return next;
  }

  async listVersions(orgId: string, id: string, limit: number, offset: number) {
    await this.get(orgId, id);
    const where = and(eq(pipelineVersions.orgId, orgId), eq(pipelineVersions.pipelineId, id));
    const [rows, totals] = await Promise.all([
      this.db.select().from(pipelineVersions).where(where).orderBy(desc(pipelineVersions.version)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(pipelineVersions).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  async getVersion(orgId: string, id: string, version: number): Promise<PipelineVersionRow> {
    const row = await this.db
      .select()
      .from(pipelineVersions)
      .where(and(eq(pipelineVersions.orgId, orgId), eq(pipelineVersions.pipelineId, id), eq(pipelineVersions.version, version)))
      .get();
    if (!row) throw notFound(`Pipeline ${id} has no version ${version}`, "PIPELINE_VERSION_NOT_FOUND");
    return row;
  }
}

function versionOf(row: PipelineRow): PipelineVersionRow {
  return {
    orgId: row.orgId,
    pipelineId: row.id,
    version: row.version,
    name: row.name,
    description: row.description,
    definition: row.definition,
    createdAt: row.updatedAt,
  };
}
