// The code.javascript node: the tenant's module run in the sandbox (sandbox.ts) with a ctx built
// from the pipeline's services, so the code reaches exactly what the node may: the org's FHIR store
// as the pipeline's principal (the API's access checks, test mode's read-only store), outbound HTTP
// through the outbound guard, and the node's logs.
import { z } from "zod";
import { defineNode, type NodeContext, NodeFailure, type PipelineServices } from "../pipelines";
import type { CodeHelpers } from "./ports";
import { type CodeLimits, type HostFunction, MAX_LIMITS, runTenantCode, syntaxError, type TenantApi, loadSandbox } from "./sandbox";

const READ_METHODS = new Set(["GET", "HEAD"]);
const limit = (key: keyof CodeLimits) => z.number().int().positive().max(MAX_LIMITS[key]).optional();

export const CodeConfig = z
  .object({
    code: z.string().min(1).max(200_000).describe("An ES module: export default async function (input, ctx) { ... }"),
    limits: z
      .object({ cpuMs: limit("cpuMs"), wallMs: limit("wallMs"), memoryBytes: limit("memoryBytes"), outputChars: limit("outputChars"), fhirCalls: limit("fhirCalls"), fetches: limit("fetches"), helperCalls: limit("helperCalls"), logLines: limit("logLines") })
      .strict()
      .optional(),
    secrets: z
      .object({
        connector_id: z.string().min(1).max(200).describe("The org's connector whose credentials the code reads (by reference: the values never enter the pipeline)"),
        names: z.array(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/)).min(1).max(20).describe("The credentials offered as ctx.secrets.<name>, and only those"),
      })
      .strict()
      .optional()
      .describe("ctx.secrets: named credentials of one of the org's connectors"),
  })
  .strict();
export type CodeConfig = z.infer<typeof CodeConfig>;

const text = (v: unknown, what: string) => {
  if (typeof v !== "string" || !v) throw new Error(`${what} must be a non-empty string`);
  return v;
};
const object = <T>(v: unknown, what: string) => {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error(`${what} must be an object`);
  return v as T;
};

/** Secret values this short are not masked in logs and errors (they would mask ordinary text). */
const MIN_MASKED = 4;

/** Replaces each secret's value in `text` with [secret]. */
export function maskSecrets(text: string, secrets: Record<string, string>): string {
  let out = text;
  for (const v of Object.values(secrets)) if (v.length >= MIN_MASKED) out = out.split(v).join("[secret]");
  return out;
}

/** Where the code runs: a pipeline node's context, or a code-backed tool's (runner.ts). */
export type CodeHost = Pick<NodeContext<unknown>, "testMode" | "signal" | "log" | "wouldWrite"> & { services: Pick<PipelineServices, "fhir" | "fetch"> };

/** What `ctx` offers the code, each answer plain JSON: the store, fetch, the node's secrets and the root's helpers (codecs). */
export function nodeApi(ctx: CodeHost, helpers: CodeHelpers = {}, secrets: Record<string, string> = {}): TenantApi {
  const fhir = () => ctx.services.fhir();
  type Res = Parameters<ReturnType<typeof fhir>["create"]>[0];
  const codecs = Object.fromEntries(Object.entries(helpers).map(([name, h]): [string, HostFunction] => [name, { budget: "helperCalls", sync: true, call: (args) => h.call(args), ...(h.decorate ? { decorate: h.decorate } : {}) }]));
  return {
    functions: {
      ...codecs,
      "fhir.read": { budget: "fhirCalls", call: ([type, id]) => fhir().read(text(type, "type"), text(id, "id")) },
      "fhir.search": { budget: "fhirCalls", call: ([type, query]) => fhir().search(text(type, "type"), typeof query === "string" ? query : new URLSearchParams((query ?? {}) as Record<string, string>).toString()) },
      "fhir.create": { budget: "fhirCalls", call: async ([resource]) => (await fhir().create(object<Res>(resource, "resource"))).resource },
      "fhir.update": { budget: "fhirCalls", call: async ([resource]) => (await fhir().update(object<Res & { id: string }>(resource, "resource"))).resource },
      "fhir.transaction": { budget: "fhirCalls", call: ([bundle]) => fhir().batch(object(bundle, "bundle")) },
      fetch: {
        budget: "fetches",
        call: async ([url, init]) => {
          const o = (init ?? {}) as { method?: string; headers?: Record<string, string>; body?: unknown };
          const method = (o.method ?? "GET").toUpperCase();
          if (ctx.testMode && !READ_METHODS.has(method)) {
            ctx.wouldWrite(`http:${method} ${String(url)}`, { headers: o.headers, body: o.body });
            return { status: 0, headers: {}, body: null, test_mode: "not sent" };
          }
          const body = o.body === undefined || typeof o.body === "string" ? o.body : JSON.stringify(o.body);
          const res = await ctx.services.fetch(text(url, "url"), { method, headers: o.headers, body, signal: ctx.signal });
          const answer = await res.text();
          let parsed: unknown = answer;
          try {
            parsed = answer ? JSON.parse(answer) : null;
          } catch {
            // not JSON: the text
          }
          return { status: res.status, headers: Object.fromEntries(res.headers), body: parsed };
        },
      },
    },
    values: { secrets },
    log: (message) => ctx.log("info", maskSecrets(message, secrets)),
  };
}

/** The code node family, its ctx helpers (the standards' codecs) handed in by the composition root. */
export const codeNodes = (helpers: () => CodeHelpers) => [codeJavascript(helpers)];

const codeJavascript = (helpers: () => CodeHelpers) => defineNode({
  id: "code.javascript",
  name: "Code (JavaScript)",
  category: "data",
  description: "Runs your JavaScript module (export default async function (input, ctx)) in a sandbox with limits; ctx offers fhir, fetch, log, secrets (named credentials of a connector), and the HL7 v2 and X12 codecs (hl7, x12).",
  keywords: ["javascript", "js", "code", "script", "function", "custom", "sandbox"],
  inputs: [{ name: "input", type: "any" }],
  outputs: [{ name: "output", type: "json" }],
  config: CodeConfig,
  documentation: {
    summary:
      "ctx.fhir.read/search/create/update/transaction reach the organization's store as the pipeline; ctx.fetch(url, {method, headers, body}) goes through the outbound guard and answers {status, headers, body}; ctx.log(...) writes the node's log; ctx.secrets.<name> is a credential of the connector config.secrets names (masked in logs and errors); ctx.hl7.parse(text) answers {type, trigger, controlId, version, delimiters, segments: [{name, fields}]} with get('PID-3.1') and getAll(path), ctx.hl7.encode(view) and ctx.hl7.ack(view, code, text?) answer HL7 text, ctx.x12.parse(text) answers X12 parse's JSON {valid, issues, interchanges}, ctx.x12.build(json) X12 text; a codec failure is an error with err.code (HL7_NO_MSH, X12_...), the node's error code when not caught. Values cross as JSON. Limits (docs/code.md): CODE_TIMEOUT, CODE_MEMORY, CODE_LIMIT; a throw is CODE_ERROR with line and column.",
    example: {
      config: { code: "export default async function (input, ctx) {\n  const p = await ctx.fhir.read('Patient', input.id);\n  return { name: p.name?.[0]?.family };\n}" },
      inputs: { input: { id: "123" } },
      outputs: { output: { name: "Lovelace" } },
    },
  },
  prepare: async () => {
    await loadSandbox();
  },
  validateConfig: (config) => {
    const err = syntaxError(config.code);
    return err ? [{ path: "code", message: `${err.message} (line ${err.line ?? "?"}, column ${err.column ?? "?"})` }] : [];
  },
  run: async (ctx) => {
    const s = ctx.config.secrets;
    // Read at each run, from the org's own connector (another org's id is not found).
    const secrets = s ? await ctx.services.connectors.secrets(s.connector_id, s.names) : {};
    const r = await runTenantCode({ code: ctx.config.code, input: ctx.inputs.input, ctxApi: nodeApi(ctx, helpers(), secrets), limits: ctx.config.limits, scope: ctx.orgId });
    if (!r.ok) throw new NodeFailure(r.error.helperCode ?? r.error.code, maskSecrets(r.error.message, secrets), { ...(r.error.line ? { line: r.error.line, column: r.error.column } : {}) });
    return { outputs: { output: r.output } };
  },
});

