// Worker entry point: the HTTP app and the Durable Object classes it binds.
import { buildApp } from "./app";
import type { Env } from "./env";

export { Conversation } from "../durable-objects/conversation";
export { OrgGate } from "../durable-objects/org-gate";

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
