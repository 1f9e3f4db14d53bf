// What $validate answers: the OperationOutcome of validating a resource (or a Parameters with a
// 'resource') against the base R4 definitions; it reads nothing and writes nothing.
import { badRequest } from "../../platform/errors";
import type { Resource } from "./port";
import { validateResource } from "./validate";

/** `type`: the one the URL names, which the resource must be. */
export function validationOutcome(resource: unknown, type?: string): Resource {
  if (!resource || typeof resource !== "object") throw badRequest("$validate needs a resource");
  let r = resource as Resource;
  if (r.resourceType === "Parameters" && Array.isArray(r.parameter)) {
    const p = (r.parameter as { name?: string; resource?: Resource }[]).find((x) => x.name === "resource");
    if (!p?.resource) throw badRequest("Parameters for $validate need a 'resource' parameter");
    r = p.resource;
  }
  if (type && r.resourceType !== type) throw badRequest(`The resource is a ${r.resourceType}, the URL names ${type}`);
  const issues = validateResource(r);
  return {
    resourceType: "OperationOutcome",
    issue: issues.length
      ? issues.map((i) => ({ severity: "error", code: "structure", diagnostics: i.message, expression: [i.path] }))
      : [{ severity: "information", code: "informational", diagnostics: "No issues found" }],
  };
}
