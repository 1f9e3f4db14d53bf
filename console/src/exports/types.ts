// The export list's items (GET /api/v1/bulk-exports, the generated client's schema) and a completed
// export's manifest (Bulk Data's own JSON, not in the OpenAPI document).
import type { components } from "../../../clients/typescript/api.generated";

export type ExportLevel = "system" | "patient" | "group";

export type BulkExport = components["schemas"]["BulkExport"];

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
