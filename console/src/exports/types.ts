// The export list's items (GET /api/v1/bulk-exports) and a completed export's manifest.
export type ExportLevel = "system" | "patient" | "group";

export interface BulkExport {
  id: string;
  level: ExportLevel;
  group_id: string | null;
  types: string[];
  since: string | null;
  requested_by: { key_id: string; name: string };
  created_at: string;
  status: "running" | "completed" | "failed" | "cancelled" | "expired";
  progress: number;
  exported: number;
  completed_at: string | null;
  expires_at: string | null;
  failure: string | null;
  status_url: string;
}

export interface ManifestFile {
  type: string;
  url: string;
  count: number;
}

export interface Manifest {
  transactionTime: string;
  output: ManifestFile[];
  error: ManifestFile[];
}

/** An absolute URL of the service (written on its public base) as a same-origin path. */
export const pathOf = (url: string) => {
  const u = new URL(url, window.location.origin);
  return `${u.pathname}${u.search}`;
};
