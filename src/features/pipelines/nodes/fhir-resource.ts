// Shared checks for healthcare nodes: values on fhir-resource / fhir-bundle ports.
import type { Bundle, Resource } from "../../fhir";
import { NodeFailure } from "../node-failure";

export function asResource(value: unknown, port = "resource"): Resource {
  if (!value || typeof value !== "object" || typeof (value as Resource).resourceType !== "string") {
    throw new NodeFailure("NOT_A_RESOURCE", `The ${port} port needs a FHIR resource (an object with resourceType)`);
  }
  return value as Resource;
}

export function asBundle(value: unknown, port = "bundle"): Bundle {
  const resource = asResource(value, port);
  if (resource.resourceType !== "Bundle") throw new NodeFailure("NOT_A_BUNDLE", `The ${port} port needs a Bundle, got ${resource.resourceType}`);
  return resource as Bundle;
}

export const RESOURCE_TYPE = /^[A-Z][A-Za-z]{1,63}$/;
