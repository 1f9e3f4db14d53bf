// The inbound API's use cases: ingest a batch of one protocol (store it, then start each new
// sender's router), list, view and reprocess messages. Every one is scoped to the caller's org.
import type { z } from "@hono/zod-openapi";
import type { OrgData } from "../../../platform/org-data";
import type { Database } from "../../../platform/db/client";
import { orgObject } from "../../../platform/durable-objects/object-names";
import type { Env } from "../../../platform/env";
import { badRequest, conflict, notFound } from "../../../platform/errors";
import type { FieldPaths, InboundAdapter } from "../adapter";
import type { InboundAdapters } from "../adapters";
import { type IngestResult, ingestMessages } from "../ingest";
import type { IngestBody, MessageListQuery } from "../schemas";
import { searchByField } from "../search";
import { type RouteStats, routeStats } from "../stats";
import { type HourCount, hourStarts } from "../../../platform/db/hourly";
import { type InboundMessageSummary, InboundMessageStore, type MessageFilter, type SenderSeen } from "../store";
import type { InboundMessageRow } from "../tables";

const storeOf = (db: Database, env: Env, orgId: string) => new InboundMessageStore(db, orgId, env.BLOBS);

const missing = () => notFound("Message not found", "MESSAGE_NOT_FOUND");

/** Makes sure each sender's MessageRouter has an alarm pending to drain its line. */
async function kickRouters(env: Env, orgId: string, senders: string[]): Promise<void> {
  await Promise.all(senders.map((s) => orgObject(env.MESSAGE_ROUTER, orgId, s).kick(orgId, s)));
}

export async function ingestBatch(
  data: OrgData,
  adapter: InboundAdapter,
  messages: z.infer<typeof IngestBody>["messages"],
): Promise<IngestResult[]> {
  const { db, env, orgId } = data;
  const { results, senders } = await ingestMessages(storeOf(db, env, orgId), adapter, messages);
  await kickRouters(env, orgId, senders);
  return results;
}

/** The protocols whose adapter reads `path`; 400 when none does (or `field` comes without `value`). */
function fieldReaders(adapters: InboundAdapters, q: z.infer<typeof MessageListQuery>): Map<string, FieldPaths> | undefined {
  if (q.field === undefined && q.value === undefined) return undefined;
  if (q.field === undefined || q.value === undefined) throw badRequest("field and value go together: the field path and the value it must have", [{ path: q.field === undefined ? "field" : "value", message: "Required with the other" }]);
  const readers = new Map<string, FieldPaths>();
  const problems: string[] = [];
  for (const adapter of adapters.all()) {
    const problem = adapter.fields?.problem(q.field);
    if (adapter.fields && problem === undefined) readers.set(adapter.protocol, adapter.fields);
    else if (problem) problems.push(`${adapter.protocol}: ${problem}`);
  }
  if (!readers.size) throw badRequest(`No inbound protocol has the field path ${JSON.stringify(q.field)}`, [{ path: "field", message: problems.join("; ") || "No protocol offers field paths" }]);
  return readers;
}

export async function listMessages(data: OrgData, adapters: InboundAdapters, q: z.infer<typeof MessageListQuery>): Promise<{ rows: InboundMessageSummary[]; total: number }> {
  const { db, env, orgId } = data;
  const filter: MessageFilter = {
    ...(q.status ? { status: q.status } : {}),
    ...(q.protocol ? { protocol: q.protocol } : {}),
    ...(q.message_type ? { messageType: q.message_type } : {}),
    ...(q.control_id ? { controlId: q.control_id } : {}),
    ...(q.sender ? { sender: q.sender } : {}),
    ...(q.text ? { texts: [q.text] } : {}),
  };
  const store = storeOf(db, env, orgId);
  const readers = fieldReaders(adapters, q);
  if (readers && q.field && q.value) return await searchByField(store, filter, { path: q.field, value: q.value, readers }, q.limit, q.offset);
  return store.list(filter, q.limit, q.offset);
}

/** Per inbound route (protocol and sender): its messages of the last `hours` hours by outcome, hour by hour. */
export async function messageStats(data: OrgData, hours: number, now = new Date()): Promise<{ since: string; routes: RouteStats[] }> {
  const { db, env, orgId } = data;
  const starts = hourStarts(now, hours);
  const since = starts[0]!;
  return { since, routes: routeStats(await storeOf(db, env, orgId).countsByHour(since), starts) };
}

/** Messages received since `since` (ISO) per UTC hour, by status (the Overview's "messages in"). */
export async function messagesByHour(data: OrgData, since: string): Promise<HourCount[]> {
  const { db, env, orgId } = data;
  return (await storeOf(db, env, orgId).countsByHour(since)).map((c) => ({ hour: c.hour, series: c.status, count: c.count }));
}

/** The senders the organization's messages came from, most recent first. */
export function listSenders(data: OrgData): Promise<SenderSeen[]> {
  const { db, env, orgId } = data;
  return storeOf(db, env, orgId).senders();
}

/** The message with its text (read from R2 when kept there). */
export async function getMessage(data: OrgData, id: string): Promise<InboundMessageRow> {
  const { db, env, orgId } = data;
  const store = storeOf(db, env, orgId);
  const found = await store.get(id);
  if (!found) throw missing();
  return store.withRaw(found);
}

/** Puts a processed, unrouted or failed message back at the head of its sender's line; answers it as queued. */
export async function reprocessMessage(data: OrgData, id: string): Promise<InboundMessageSummary> {
  const { db, env, orgId } = data;
  const store = storeOf(db, env, orgId);
  const row = await store.get(id);
  if (!row) throw missing();
  if (!row.sender) throw conflict("A rejected (unidentifiable) message cannot be reprocessed", "MESSAGE_NOT_REPROCESSABLE");
  if (row.status === "received") throw conflict("The message is already waiting to be processed", "MESSAGE_PENDING");
  await store.requeue(row.id);
  await kickRouters(env, orgId, [row.sender]);
  return { ...row, status: "received", error: null, attempts: 0 };
}
