// The four ai nodes, for the coordinator to register in the pipeline catalog.
export { agentNode } from "./agent";
export { classifyNode } from "./classify";
export { extractFhirNode } from "./extract-fhir";
export { llmPromptNode } from "./llm-prompt";
export type { AiNode, AiNodeContext, Port } from "./types";
