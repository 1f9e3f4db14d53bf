// The store's own operations: $validate and Patient/$everything.
import { z } from "@hono/zod-openapi";
import { type AnyOperation, defineOperation } from "./operation";

const validate = defineOperation({
  name: "validate",
  definition: "http://hl7.org/fhir/OperationDefinition/Resource-validate",
  levels: ["type", "instance"],
  types: "*",
  methods: ["POST"],
  // Validation reads nothing and writes nothing: a reader may validate.
  permission: "fhir:read",
  input: "resource",
  parameters: z.object({}),
  summary: "Validate a resource (or a Parameters with a 'resource') against the base R4 definitions",
  handler: async ({ store, body, type }) => ({ body: await store.validate(body, type) }),
});

const everything = defineOperation({
  name: "everything",
  definition: "http://hl7.org/fhir/OperationDefinition/Patient-everything",
  levels: ["instance"],
  types: ["Patient"],
  methods: ["GET", "POST"],
  permission: "fhir:read",
  input: "none",
  parameters: z.object({}),
  summary: "Patient/$everything: the patient, its compartment and what those resources reference",
  handler: async ({ store, id }) => ({ body: await store.everything(id!) }),
});

export const coreOperations: AnyOperation[] = [validate, everything];
