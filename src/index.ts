// Worker entry point: the HTTP app and the Durable Object classes it binds.
import { buildApp } from "./app";
import type { Env } from "./env";
import { normalizeFhirBase } from "./routes/fhir";

export { OrgGate } from "../durable-objects/org-gate";

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(normalizeFhirBase(request), env, ctx),
} satisfies ExportedHandler<Env>;
