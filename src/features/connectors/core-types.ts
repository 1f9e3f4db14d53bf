// The connector types every deployment has: HTTP-based (FHIR servers, webhooks, model
// endpoints), called with fetch. Standards add types with their own transport.
import type { ConnectorType } from "./types";

const HTTP = ["http", "https"];

export const CORE_CONNECTOR_TYPES: ConnectorType[] = [
  {
    type: "fhir",
    name: "FHIR server (EHR)",
    description: "A FHIR R4 API of an EHR or another FHIR server; used by the EHR fetch node and HTTP tools",
    auth_kinds: ["oauth2_client_credentials", "bearer", "none"],
    schemes: HTTP,
    test_path: "metadata",
  },
  {
    type: "http",
    name: "HTTP / webhook",
    description: "Any HTTP endpoint; used by the HTTP request node and HTTP tools",
    auth_kinds: ["none", "bearer", "basic", "header"],
    schemes: HTTP,
    test_path: "",
  },
  {
    type: "openai_compatible",
    name: "OpenAI-compatible model endpoint",
    description:
      "A language model API speaking the OpenAI chat.completions protocol (llama.cpp, Ollama, vLLM or a hosted service); its models become available to the organization's agents and ai nodes",
    auth_kinds: ["bearer", "none"],
    schemes: HTTP,
    test_path: "models",
  },
];
