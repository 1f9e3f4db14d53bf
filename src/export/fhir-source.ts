// Placeholder removed at merge with the FHIR store: kept out of main.
import type { Env } from "../env";
import type { ExportSource } from "./source";
export function exportSourceFor(_env: Env, _orgId: string): ExportSource {
  throw new Error("not merged yet");
}
