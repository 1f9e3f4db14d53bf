// Where an export reads resources from: the FHIR store's export reader (its port), or
// in tests an in-memory source. Lines are the stored JSON text, so export never re-serializes.
import type { FhirExportReader } from "../fhir";

export type { ExportPage, ExportQuery } from "../fhir";
export type ExportSource = FhirExportReader;
