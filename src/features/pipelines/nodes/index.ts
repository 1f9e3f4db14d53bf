// The core node families: control, data, healthcare (FHIR), output. Other families
// (ai, HL7 v2; later DICOM, X12, devices, consent) export their own lists, and the
// composition root assembles the catalog from all of them (src/main/plugins.ts).
import type { NodeType } from "../node-type";
import { conceptMapNode } from "./concept-map";
import { fhirpathEvaluate, filter, jsonSchemaValidate, setFields, transform } from "./data";
import { ehrFetch } from "./ehr-fetch";
import { ehrWrite } from "./ehr-write";
import { bundleMerge, bundleSplit } from "./fhir-bundles";
import { fhirCreate, fhirRead, fhirSearch, fhirUpdate, fhirUpsert, fhirValidate } from "./fhir-store";
import { condition, delay, forEach, merge, switchNode } from "./flow";
import { enqueueOutput, httpRequest, logNode, respond } from "./output";
import { eventTrigger, manualTrigger, scheduleTrigger, webhookTrigger } from "./triggers";

export const CONTROL_NODES = [manualTrigger, webhookTrigger, scheduleTrigger, eventTrigger, condition, switchNode, forEach, merge, delay];
export const DATA_NODES = [transform, filter, setFields, fhirpathEvaluate, jsonSchemaValidate, conceptMapNode];
export const HEALTHCARE_NODES = [fhirRead, fhirSearch, fhirCreate, fhirUpdate, fhirUpsert, fhirValidate, bundleSplit, bundleMerge, ehrFetch, ehrWrite];
export const OUTPUT_NODES = [httpRequest, enqueueOutput, respond, logNode];

export const CORE_NODE_FAMILIES: readonly (readonly NodeType<unknown>[])[] = [CONTROL_NODES, DATA_NODES, HEALTHCARE_NODES, OUTPUT_NODES];
