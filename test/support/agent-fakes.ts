// Installs faithful fakes behind the AgentServices seam for Worker tests, one
// state per organization: an in-memory FHIR store, recorded audit events,
// pipelines and custom tools as plain functions, and model endpoints (usually
// the fake OpenAI-compatible server).
import type { AgentAuditEvent } from "../../src/features/agents/audit";
import type { ModelEndpoint } from "../../src/features/agents/models";
import type { AgentServices, CustomTool, VitalsQuery } from "../../src/features/agents/services";
import { notFound } from "../../src/platform/errors";
import { type Brain, fakeOpenAI } from "./fake-openai";
import { MemoryFhir } from "./memory-fhir";
import { useAgentServices } from "./service-profile";

export interface FakeOrg {
  fhir: MemoryFhir;
  audits: AgentAuditEvent[];
  pipelines: Map<string, (inputs: Record<string, unknown>) => Promise<unknown>>;
  customTools: CustomTool[];
  endpoints: ModelEndpoint[];
  vitals?: (q: VitalsQuery) => Promise<unknown>;
  /** Makes audit writes fail, to prove results are withheld. */
  auditBroken?: boolean;
}

const orgs = new Map<string, FakeOrg>();

export function fakeOrg(orgId: string): FakeOrg {
  let org = orgs.get(orgId);
  if (!org) {
    org = { fhir: new MemoryFhir(), audits: [], pipelines: new Map(), customTools: [], endpoints: [] };
    orgs.set(orgId, org);
  }
  return org;
}

/** The fakes for one organization, to pass in where a test builds what uses them. */
export function fakeAgentServices(orgId: string): AgentServices {
  const org = fakeOrg(orgId);
  return {
    fhir: () => org.fhir,
    runPipeline: async (id, inputs) => {
      const p = org.pipelines.get(id);
      if (!p) throw notFound(`Pipeline ${id} not found`, "PIPELINE_NOT_FOUND");
      return p(inputs);
    },
    listCustomTools: async () => org.customTools,
    customTool: async (idOrName) => org.customTools.find((t) => t.id === idOrName || t.name === idOrName),
    modelEndpoints: async () => org.endpoints,
    ...(org.vitals ? { vitals: org.vitals } : {}),
    audit: async (e) => {
      if (org.auditBroken) throw new Error("audit store down");
      org.audits.push(e);
    },
  };
}

/** For code reached through HTTP or Durable Objects: call once per test file (beforeAll). The test service profile serves the fakes for the rest of the file (the setup clears them before the next). */
export function installAgentFakes(): void {
  useAgentServices(fakeAgentServices);
}

/** Gives an org a model: the fake OpenAI-compatible server driven by `brain`. */
export function giveModel(orgId: string, brain: Brain, name = "fake-llama") {
  const server = fakeOpenAI(brain, [name]);
  fakeOrg(orgId).endpoints = [
    { id: "local", baseURL: "http://llm.test/v1", models: [{ name, context_window: 8192 }], fetch: server.fetch },
  ];
  return server;
}
