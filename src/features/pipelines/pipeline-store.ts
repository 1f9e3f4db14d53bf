// Pipelines and their kept versions in D1. A new version is written whenever the
// definition changes; deploy pins the version that triggers and executions run.
import { and, count, desc, eq, exists, ne, notExists, sql } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type PipelineRow, type PipelineVersionRow, pipelineTriggers, pipelineVersions, pipelines } from "./tables";
import { conflict, notFound } from "../../platform/errors";
import { canonicalJson, type Definition } from "./definition";
import type { NodeRegistry } from "./registry";
import { triggerRows } from "./trigger-index";

export interface PipelineInput {
  name: string;
  description: string;
  definition: Definition;
}

/** Saves racing a deploy make it re-read; beyond this many it gives up with 409. */
const DEPLOY_ATTEMPTS = 5;

export const pipelineNotFound = (id: string) => notFound(`Pipeline ${id} not found`, "PIPELINE_NOT_FOUND");

export const versionConflict = (id: string, expected: number, actual: number) =>
  conflict(`Pipeline ${id} is at version ${actual}, not ${expected}: it changed since`, "PIPELINE_VERSION_CONFLICT");

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

  /**
   * Saves name, description and definition; the version moves only when the definition changed.
   * The next number is allocated by the statement that bumps it and the version row is copied
   * from the saved row in the same batch, so racing saves each get their own version.
   * With `ifVersion`, the save applies only while the pipeline is still at that version (409 otherwise).
   */
  async update(orgId: string, id: string, input: PipelineInput, ifVersion?: number): Promise<PipelineRow> {
    const current = await this.get(orgId, id);
    if (ifVersion !== undefined && current.version !== ifVersion) throw versionConflict(id, ifVersion, current.version);
    const own = this.own(orgId, id);
    // The version row is copied after the update moved the version, so only the update carries the guard.
    const guarded = ifVersion === undefined ? own : and(own, eq(pipelines.version, ifVersion));
    // Another save may have stored this very definition since it was read: then it is no new version.
    const bump = canonicalJson(current.definition) === canonicalJson(input.definition)
      ? sql`0`
      : sql`CASE WHEN ${pipelines.definition} = ${JSON.stringify(input.definition)} THEN 0 ELSE 1 END`;
    const [saved] = await this.db.batch([
      this.db
        .update(pipelines)
        .set({
          name: input.name,
          description: input.description,
          definition: input.definition,
          version: sql`${pipelines.version} + ${bump}`,
          updatedAt: new Date().toISOString(),
        })
        .where(guarded)
        .returning(),
      this.db
        .insert(pipelineVersions)
        .select(
          this.db
            .select({
              orgId: pipelines.orgId,
              pipelineId: pipelines.id,
              version: pipelines.version,
              name: pipelines.name,
              description: pipelines.description,
              definition: pipelines.definition,
              createdAt: pipelines.updatedAt,
            })
            .from(pipelines)
            .where(and(own, notExists(this.versionRow(orgId, id, pipelines.version)))),
        ),
    ]);
    if (!saved[0]) {
      if (ifVersion === undefined) throw pipelineNotFound(id);
      throw versionConflict(id, ifVersion, (await this.get(orgId, id)).version);
    }
    return saved[0];
  }

  /**
   * Deletes an undeployed pipeline. The status check is part of the delete, and the versions and
   * triggers go only once the pipeline row is gone, so a racing deploy either wins (409 here) or
   * finds nothing to deploy: a deployed pipeline never loses its versions.
   */
  async delete(orgId: string, id: string): Promise<void> {
    const own = this.own(orgId, id);
    const gone = notExists(this.db.select({ one: sql`1` }).from(pipelines).where(own));
    const [deleted] = await this.db.batch([
      this.db.delete(pipelines).where(and(own, ne(pipelines.status, "deployed"))).returning({ id: pipelines.id }),
      this.db.delete(pipelineVersions).where(and(eq(pipelineVersions.orgId, orgId), eq(pipelineVersions.pipelineId, id), gone)),
      this.db.delete(pipelineTriggers).where(and(eq(pipelineTriggers.orgId, orgId), eq(pipelineTriggers.pipelineId, id), gone)),
    ]);
    if (deleted.length > 0) return;
    await this.get(orgId, id); // 404 when it never existed or a racing delete took it
    throw conflict("Undeploy the pipeline before deleting it", "PIPELINE_DEPLOYED");
  }

  /**
   * Any state → deployed at the current version; its schedule and event triggers become live.
   * The batch applies only if the pipeline still exists at the version whose triggers it indexes;
   * `nodes` says which of its nodes are triggers and what each indexes.
   */
  async deploy(orgId: string, id: string, nodes: NodeRegistry): Promise<PipelineRow> {
    for (let attempt = 0; attempt < DEPLOY_ATTEMPTS; attempt++) {
      const row = await this.get(orgId, id);
      const own = this.own(orgId, id);
      const atVersion = and(own, eq(pipelines.version, row.version));
      // True once this batch's update applied: the trigger rows follow it, or nothing changes.
      const deployedAtVersion = and(atVersion, eq(pipelines.status, "deployed"), eq(pipelines.deployedVersion, row.version));
      const deployedHere = exists(this.db.select({ one: sql`1` }).from(pipelines).where(deployedAtVersion));
      const [deployed] = await this.db.batch([
        this.db
          .update(pipelines)
          .set({ status: "deployed", deployedVersion: row.version, updatedAt: new Date().toISOString() })
          .where(atVersion)
          .returning(),
        this.db.delete(pipelineTriggers).where(and(eq(pipelineTriggers.orgId, orgId), eq(pipelineTriggers.pipelineId, id), deployedHere)),
        ...triggerRows(nodes, orgId, id, row.definition as Definition).map((t) =>
          this.db.insert(pipelineTriggers).select(
            this.db
              .select({
                orgId: sql`${t.orgId}`.as("t_org_id"),
                pipelineId: sql`${t.pipelineId}`.as("t_pipeline_id"),
                nodeId: sql`${t.nodeId}`.as("t_node_id"),
                kind: sql`${t.kind}`.as("t_kind"),
                match: sql`${t.match}`.as("t_match"),
                attributes: sql`${JSON.stringify(t.attributes ?? {})}`.as("t_attributes"),
              })
              .from(pipelines)
              .where(deployedAtVersion),
          ),
        ),
      ]);
      if (deployed[0]) return deployed[0];
      // Deleted (get answers 404 on the next turn) or saved as a new version since it was read: deploy that.
    }
    throw conflict("The pipeline is being changed concurrently; retry", "PIPELINE_VERSION_CONFLICT");
  }

  /** deployed → active; its schedules and event triggers stop at once. */
  async undeploy(orgId: string, id: string): Promise<PipelineRow> {
    const [updated] = await this.db.batch([
      this.db
        .update(pipelines)
        .set({ status: "active", deployedVersion: null, updatedAt: new Date().toISOString() })
        .where(this.own(orgId, id))
        .returning(),
      this.db.delete(pipelineTriggers).where(and(eq(pipelineTriggers.orgId, orgId), eq(pipelineTriggers.pipelineId, id))),
    ]);
    if (!updated[0]) throw pipelineNotFound(id);
    return updated[0];
  }

  private own(orgId: string, id: string) {
    return and(eq(pipelines.orgId, orgId), eq(pipelines.id, id));
  }

  private versionRow(orgId: string, id: string, version: typeof pipelines.version) {
    return this.db
      .select({ one: sql`1` })
      .from(pipelineVersions)
      .where(and(eq(pipelineVersions.orgId, orgId), eq(pipelineVersions.pipelineId, id), eq(pipelineVersions.version, version)));
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
