// The consent node family (listed in src/main/plugins.ts).
import type { NodeType } from "../../pipelines";
import { consentCapture } from "./capture";
import { consentValidate } from "./validate";

export const CONSENT_NODES: readonly NodeType<unknown>[] = [consentCapture, consentValidate];
