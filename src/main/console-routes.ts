// The web console's routes, in wouter's pattern syntax (regexparam: `:name` is one path segment,
// matched case-insensitively, a trailing slash allowed). The console's router (console/src/App.tsx)
// takes every route path from here, and the Worker answers exactly these paths with the console's
// page (and 404 for any other path that is not one of its files), so the two cannot drift.
// Import-free so the console bundles it.
export const CONSOLE_ROUTES = {
  overview: "/",
  pipelines: "/pipelines",
  newPipeline: "/pipelines/new",
  editPipeline: "/pipelines/:id/edit",
  pipeline: "/pipelines/:id",
  executions: "/executions",
  stepDebugger: "/executions/debug",
  execution: "/executions/:id",
  messages: "/messages",
  message: "/messages/:id",
  agents: "/agents",
  agent: "/agents/:id",
  devices: "/devices",
  patients: "/patients",
  patient: "/patients/:id",
  apiKeys: "/settings/api-keys",
  connectors: "/settings/connectors",
  organization: "/settings/organization",
  auditLog: "/settings/audit",
  fhirBrowser: "/fhir-browser",
  fhirType: "/fhir-browser/:type",
  fhirResource: "/fhir-browser/:type/:id",
  fhirVersion: "/fhir-browser/:type/:id/_history/:vid",
  exports: "/exports",
} as const;
