// Tenant code outside a pipeline: a code-backed custom tool (agents' /tools) runs the same sandbox
// with the same ctx as the code.javascript node (node.ts), on the services of the caller's
// principal, its isolate cached by org and code hash like the node's. What a node writes to the
// execution's logs and would-writes, a tool run answers with its result.
import type { PipelineServices } from "../pipelines";
import { type CodeConfig, maskSecrets, nodeApi } from "./node";
import type { CodeHelpers } from "./ports";
import { type CodeErrorCode, runTenantCode } from "./sandbox";

export interface CodeRunOutcome {
  ok: boolean;
  /** The returned value (JSON) when ok. */
  output?: unknown;
  /** What failed the run (CODE_TIMEOUT, CODE_ERROR with line and column...), secrets masked. */
  error?: { code: CodeErrorCode | string; message: string; line?: number; column?: number };
  /** ctx.log lines, secrets masked. */
  logs: string[];
  /** In test mode, what the code would have written outside (ctx.fetch other than GET/HEAD). */
  would_write: { target: string; payload: unknown }[];
}

export interface CodeRunner {
  /** Runs `config` (the code, its limits and its secrets' reference) on `input`; the connector secrets are read at each run. */
  run(config: CodeConfig, input: unknown, signal?: AbortSignal): Promise<CodeRunOutcome>;
}

/** A runner on the services of one principal of `orgId`; `helpers`: the plug-ins' codecs (ctx.hl7, ctx.x12). */
export function codeRunner(services: PipelineServices, helpers: CodeHelpers, opts: { orgId: string; testMode: boolean }): CodeRunner {
  return {
    run: async (config, input, signal = new AbortController().signal) => {
      const s = config.secrets;
      const secrets = s ? await services.connectors.secrets(s.connector_id, s.names) : {};
      const logs: string[] = [];
      const would_write: CodeRunOutcome["would_write"] = [];
      const host = { services, testMode: opts.testMode, signal, log: (_level: string, message: string) => void logs.push(message), wouldWrite: (target: string, payload: unknown) => void would_write.push({ target, payload }) };
      const r = await runTenantCode({ code: config.code, input, ctxApi: nodeApi(host, helpers, secrets), limits: config.limits, scope: opts.orgId });
      if (r.ok) return { ok: true, output: r.output, logs, would_write };
      const { code, line, column } = r.error;
      return { ok: false, error: { code: r.error.helperCode ?? code, message: maskSecrets(r.error.message, secrets), ...(line ? { line, column } : {}) }, logs, would_write };
    },
  };
}
