// The ai node family (agent, LLM prompt, classify, extract to FHIR): NodeType values the
// composition root lists in the node catalog (src/main/plugins.ts).
import { agentNode } from "./agent";
import { classifyNode } from "./classify";
import { extractFhirNode } from "./extract-fhir";
import { llmPromptNode } from "./llm-prompt";

export { agentNode, classifyNode, extractFhirNode, llmPromptNode };
export type { AiNodeContext } from "./types";

export const AI_NODES = [agentNode, llmPromptNode, classifyNode, extractFhirNode];
