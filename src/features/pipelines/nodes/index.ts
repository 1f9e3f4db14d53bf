// Every node family the catalog offers. A new family (HL7, DICOM, X12, AI,
// devices, consent) is a module exporting NodeType values, listed here.
import type { NodeType } from "../node-type";
import { AI_NODES } from "../../agents/nodes/node-types";
import { HL7_NODES } from "../../../standards/hl7v2/nodes";
import { conceptMapNode } from "./concept-map";
import { fhirpathEvaluate, filter, jsonSchemaValidate, setFields, transform } from "./data";
import { ehrFetch } from "./ehr-fetch";
import { bundleMerge, bundleSplit } from "./fhir-bundles";
import { fhirCreate, fhirRead, fhirSearch, fhirUpdate, fhirUpsert, fhirValidate } from "./fhir-store";
import { condition, delay, forEach, merge, switchNode } from "./flow";
import { httpRequest, logNode, respond } from "./output";
import { eventTrigger, manualTrigger, scheduleTrigger, webhookTrigger } from "./triggers";

export const CONTROL_NODES = [manualTrigger, webhookTrigger, scheduleTrigger, eventTrigger, condition, switchNode, forEach, merge, delay];
export const DATA_NODES = [transform, filter, setFields, fhirpathEvaluate, jsonSchemaValidate, conceptMapNode];
export const HEALTHCARE_NODES = [fhirRead, fhirSearch, fhirCreate, fhirUpdate, fhirUpsert, fhirValidate, bundleSplit, bundleMerge, ehrFetch];
export const OUTPUT_NODES = [httpRequest, respond, logNode];

export const ALL_NODE_FAMILIES: readonly (readonly NodeType<unknown>[])[] = [CONTROL_NODES, DATA_NODES, HEALTHCARE_NODES, OUTPUT_NODES, AI_NODES, HL7_NODES];
