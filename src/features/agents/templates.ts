// Agent types and the base template of each: a ready configuration to start
// from (GET /api/agents?base_templates=true; POST /api/agents with template_id).
import type { AgentModelConfig } from "./tables";
import { DEFAULT_MODEL } from "./models";

export const AGENT_TYPES = [
  "clinical_assistant",
  "data_extractor",
  "summarizer",
  "classifier",
  "triage",
  "custom",
] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

export const AGENT_TYPE_DESCRIPTIONS: Record<AgentType, string> = {
  clinical_assistant: "Answers clinicians' questions about patients from the FHIR store, with tools",
  data_extractor: "Pulls structured facts (codes, values, dates) out of free text or documents",
  summarizer: "Writes concise summaries of patient records or documents",
  classifier: "Assigns one of a set of labels to its input",
  triage: "Ranks urgency and suggests next steps from symptoms, vitals and history",
  custom: "Anything else; configured entirely by its prompts and tools",
};

export interface AgentTemplate {
  id: string;
  name: string;
  agent_type: AgentType;
  description: string;
  model_config: AgentModelConfig;
  system_prompt: string;
  prompt_template: string;
  tools: string[];
}

const model = (temperature: number, max_tokens = 1024): AgentModelConfig => ({
  model: DEFAULT_MODEL,
  temperature,
  max_tokens,
  max_steps: 5,
});

const GROUNDING =
  "Use only data returned by your tools or given in the input; say so when something is unknown. Never invent patient data.";

export const BASE_TEMPLATES: readonly AgentTemplate[] = [
  {
    id: "template-clinical_assistant",
    name: "Clinical assistant",
    agent_type: "clinical_assistant",
    description: AGENT_TYPE_DESCRIPTIONS.clinical_assistant,
    model_config: model(0.2),
    system_prompt: `You are a clinical assistant for healthcare staff. ${GROUNDING} Cite resource ids you used.`,
    prompt_template: "{{input}}",
    tools: ["fhir_search", "fhir_read", "patient_summary", "terminology_lookup"],
  },
  {
    id: "template-data_extractor",
    name: "Data extractor",
    agent_type: "data_extractor",
    description: AGENT_TYPE_DESCRIPTIONS.data_extractor,
    model_config: model(0, 2048),
    system_prompt: `You extract structured clinical facts and answer with JSON only. ${GROUNDING}`,
    prompt_template: "Extract the clinical facts (conditions, medications, observations with values and units, dates) from:\n\n{{input}}",
    tools: ["terminology_lookup"],
  },
  {
    id: "template-summarizer",
    name: "Summarizer",
    agent_type: "summarizer",
    description: AGENT_TYPE_DESCRIPTIONS.summarizer,
    model_config: model(0.3),
    system_prompt: `You write short, accurate clinical summaries for clinicians. ${GROUNDING}`,
    prompt_template: "Summarize:\n\n{{input}}",
    tools: ["patient_summary", "fhir_search"],
  },
  {
    id: "template-classifier",
    name: "Classifier",
    agent_type: "classifier",
    description: AGENT_TYPE_DESCRIPTIONS.classifier,
    model_config: model(0, 256),
    system_prompt: "You classify the input. Answer with the label only.",
    prompt_template: "Classify:\n\n{{input}}",
    tools: [],
  },
  {
    id: "template-triage",
    name: "Triage",
    agent_type: "triage",
    description: AGENT_TYPE_DESCRIPTIONS.triage,
    model_config: model(0.1),
    system_prompt: `You support triage: rate urgency (emergent, urgent, routine) and explain why. ${GROUNDING} You support, never replace, clinical judgement.`,
    prompt_template: "{{input}}",
    tools: ["patient_summary", "fhir_search", "vitals_query"],
  },
  {
    id: "template-custom",
    name: "Custom agent",
    agent_type: "custom",
    description: AGENT_TYPE_DESCRIPTIONS.custom,
    model_config: model(0.7),
    system_prompt: "You are a helpful assistant.",
    prompt_template: "{{input}}",
    tools: [],
  },
];

export function templateById(id: string): AgentTemplate | undefined {
  return BASE_TEMPLATES.find((t) => t.id === id);
}
