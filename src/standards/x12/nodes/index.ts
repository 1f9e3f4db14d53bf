// The X12 node family (catalog category "claims"), listed in src/main/plugins.ts.
import { x12Build } from "./build";
import { fhirToX12 } from "./from-fhir";
import { x12Parse } from "./parse";
import { x12Send } from "./send";
import { x12ToFhirNode } from "./to-fhir";
import { x12InboundTrigger } from "./trigger";
import { x12Validate } from "./validate";

export const X12_NODES = [x12InboundTrigger, x12Parse, x12Validate, x12ToFhirNode, fhirToX12, x12Build, x12Send];
