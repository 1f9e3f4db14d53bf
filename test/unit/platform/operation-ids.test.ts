import { describe, expect, it } from "vitest";
import { assignOperationIds, deriveOperationId } from "../../../src/platform/http/operation-ids";

describe("operationIds", () => {
  it.each([
    ["get", "/api/pipelines", "listPipelines"],
    ["post", "/api/pipelines", "createPipeline"],
    ["get", "/api/pipelines/{id}", "getPipeline"],
    ["put", "/api/pipelines/{id}", "updatePipeline"],
    ["delete", "/api/pipelines/{id}", "deletePipeline"],
    ["post", "/api/pipelines/{id}/deploy", "deployPipeline"],
    ["get", "/api/agents/{id}/versions", "listAgentVersions"],
    ["post", "/api/agents/{id}/versions/{version}/restore", "restoreAgentVersion"],
    ["get", "/api/organization", "getOrganization"],
    ["get", "/api/api-keys/{id}", "getApiKey"],
    ["get", "/api/v1/sync-logs/{syncId}", "getSyncLog"],
    ["get", "/api/v1/patients/{patientId}/devices", "listPatientDevices"],
    ["get", "/api/copilot/insights/{agentId}", "getCopilotInsight"],
  ] as const)("%s %s → %s", (method, path, id) => {
    expect(deriveOperationId(method, path)).toBe(id);
  });

  it("keeps an explicit id and refuses two operations with one", () => {
    const paths = { "/a": { get: { operationId: "mine" } }, "/b": { get: {} } };
    assignOperationIds(paths);
    expect(paths["/a"].get.operationId).toBe("mine");
    expect(paths["/b"].get).toEqual({ operationId: "getB" });
    expect(() => assignOperationIds({ "/x": { get: { operationId: "same" } }, "/y": { get: { operationId: "same" } } })).toThrow(/same/);
  });
});
