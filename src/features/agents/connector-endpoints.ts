// The OpenAI-compatible model endpoints an organization configured as connectors
// (type openai_compatible, key encrypted at rest). Their models come from the
// endpoint's own GET /models, cached per isolate so an agent turn adds no round trip.
import { logger } from "../../platform/observability/log";
import type { OrgData } from "../../platform/org-data";
import { ConnectorStore } from "../connectors";
import { type GuardedFetch, outboundFetch } from "../../platform/outbound/fetch";
import { DEFAULT_CONTEXT_WINDOW, type ModelEndpoint } from "./models";

export const MODEL_CONNECTOR_TYPE = "openai_compatible";
const DISCOVERY_TTL_MS = 60_000;
const DISCOVERY_TIMEOUT_MS = 5_000;
const discovered = new Map<string, { names: string[]; until: number }>();

async function modelNames(fetch: GuardedFetch, baseURL: string, apiKey: string | undefined): Promise<string[]> {
  const res = await fetch(`${baseURL.replace(/\/+$/, "")}/models`, {
    headers: { accept: "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
    signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`GET /models answered ${res.status}`);
  const body = (await res.json()) as { data?: { id?: unknown }[] };
  return (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === "string" && id.length > 0);
}

export async function connectorModelEndpoints(data: OrgData): Promise<ModelEndpoint[]> {
  const { env, orgId } = data;
  const store = new ConnectorStore(data.db, env);
  const rows = await store.ofType(orgId, MODEL_CONNECTOR_TYPE);
  // Discovery and the model calls themselves (the AI SDK's fetch) both go through the guard.
  const fetch = outboundFetch(env);
  const endpoints = await Promise.all(
    rows.map(async (row): Promise<ModelEndpoint | undefined> => {
      const resolved = await store.resolve(orgId, row.id);
      const apiKey = resolved?.credentials.token;
      // Keyed by the row's update time, so editing the connector rediscovers at once.
      const key = `${orgId}:${row.id}:${row.updatedAt}`;
      const cached = discovered.get(key);
      let names = cached && cached.until > Date.now() ? cached.names : undefined;
      if (!names) {
        try {
          names = await modelNames(fetch, row.endpoint, apiKey);
          discovered.set(key, { names, until: Date.now() + DISCOVERY_TTL_MS });
        } catch (err) {
          // An unreachable endpoint offers no models; agents that name one get MODEL_UNAVAILABLE.
          logger(data.env).warn("model discovery failed", { org: data.orgId, connector: row.id, error_message: String(err) });
          return undefined;
        }
      }
      return {
        id: row.id,
        baseURL: row.endpoint,
        ...(apiKey ? { apiKey } : {}),
        fetch,
        models: names.map((name) => ({ name, context_window: DEFAULT_CONTEXT_WINDOW, tool_calling: true })),
      };
    }),
  );
  return endpoints.filter((e): e is ModelEndpoint => e !== undefined);
}
