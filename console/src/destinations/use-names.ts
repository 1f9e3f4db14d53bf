// The names of the organization's connectors and bridges, to show targets by name. Connectors are
// read only with connectors:manage (their API needs it); without it targets show ids.
import { useMemo } from "react";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import type { Bridge } from "./types";

export interface ConnectorSummary {
  id: string;
  name: string;
  type: string;
  endpoint: string;
}

export function useTargetNames() {
  const { can } = useSession();
  const connectors = useApi<{ connectors: ConnectorSummary[]; total_count: number }>(can("connectors:manage") ? "/api/connectors?limit=100" : null);
  const bridges = useApi<{ bridges: Bridge[]; total_count: number }>(can("org:read") ? "/api/v1/bridges?limit=100" : null);
  const names = useMemo(
    () => ({
      connectors: new Map((connectors.data?.connectors ?? []).map((c) => [c.id, c.name])),
      bridges: new Map((bridges.data?.bridges ?? []).map((b) => [b.id, b.name])),
    }),
    [connectors.data, bridges.data],
  );
  return { names, connectors, bridges };
}
