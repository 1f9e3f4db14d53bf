// The sandbox itself (src/features/code/sandbox.ts), each fault the issue names, with a fake ctx.
import { describe, expect, it } from "vitest";
import { codeHash, runTenantCode, sandboxCacheStats, syntaxError, loadSandbox, type TenantApi } from "../../src/features/code/sandbox";

const api = (over: Partial<TenantApi["functions"]> = {}): TenantApi => ({
  functions: {
    fetch: { budget: "fetches", call: async () => ({ status: 200, body: "ok" }) },
    "fhir.read": { budget: "fhirCalls", call: async ([t, id]) => ({ resourceType: t, id }) },
    "hl7.parse": { budget: "none", sync: true, call: ([t]) => ({ text: t }) },
    ...over,
  } as TenantApi["functions"],
  log: () => {},
});
// A CPU budget above the 50 ms default: the budget counts time inside QuickJS by the clock, so a
// loaded machine (a full suite at load 19) ran a first compile past 50 ms; the limit cases set theirs.
const run = (code: string, input: unknown = {}, limits = {}) => runTenantCode({ code, input, ctxApi: api(), limits: { cpuMs: 500, ...limits } });

describe("runTenantCode", () => {
  it("runs the default export with input and ctx, JSON both ways, logs kept", async () => {
    const r = await run(`export default async function (input, ctx) {
      const p = await ctx.fhir.read("Patient", input.id);
      ctx.log("read", p.id, { n: 1 });
      return { name: p.resourceType + "/" + p.id, parsed: ctx.hl7.parse("MSH|") };
    }`, { id: "p1" });
    expect(r).toEqual({ ok: true, output: { name: "Patient/p1", parsed: { text: "MSH|" } }, logs: ['read p1 {"n":1}'], isolate: { id: expect.stringMatching(/^[0-9a-f]{64}$/), reused: false } });
  });

  it("runs of one code in one scope reuse its loaded isolate (no compile, module state kept); a new version or another scope loads its own; a kept ctx reaches nothing", async () => {
    const scope = `org-${crypto.randomUUID()}`;
    const v1 = "let runs = 0; let kept; export default async (input, ctx) => { runs++; const stale = kept ? await kept.fhir.read('Patient', 'x').then(() => 'reached', (e) => e.message) : null; kept = ctx; return { runs, stale }; }";
    const once = (code: string, sc = scope) => runTenantCode({ code, input: {}, ctxApi: api(), scope: sc });
    const before = sandboxCacheStats();
    const first = await once(v1);
    expect(first).toMatchObject({ ok: true, output: { runs: 1, stale: null }, isolate: { id: `${scope}:${await codeHash(v1)}`, reused: false } });
    const second = await once(v1);
    expect(second).toMatchObject({ ok: true, output: { runs: 2, stale: "This ctx belongs to a run that has ended" }, isolate: { id: first.isolate.id, reused: true } });
    expect(sandboxCacheStats()).toMatchObject({ compiled: before.compiled + 1, reused: before.reused + 1 });
    const v2 = `${v1}\n// v2`;
    expect(await once(v2)).toMatchObject({ ok: true, output: { runs: 1 }, isolate: { reused: false } });
    expect(await once(v2)).toMatchObject({ ok: true, output: { runs: 2 }, isolate: { reused: true } });
    // The same code in another organization: an isolate of its own, nothing of the first one's state.
    expect(await once(v1, `${scope}-b`)).toMatchObject({ ok: true, output: { runs: 1, stale: null }, isolate: { reused: false } });
    // A throw keeps the isolate; a limit hit does not (its instance is retired).
    const flaky = "let n = 0; export default (i) => { n++; if (i.loop) while (true) {} if (i.fail) throw new Error('no'); return n; }";
    const go = (input: unknown) => runTenantCode({ code: flaky, input, ctxApi: api(), scope });
    expect(await go({})).toMatchObject({ ok: true, output: 1 });
    expect(await go({ fail: true })).toMatchObject({ ok: false, error: { code: "CODE_ERROR" }, isolate: { reused: true } });
    expect(await go({})).toMatchObject({ ok: true, output: 3 });
    expect(await go({ loop: true })).toMatchObject({ ok: false, error: { code: "CODE_TIMEOUT" } });
    expect(await go({})).toMatchObject({ ok: true, output: 1, isolate: { reused: false } });
  });

  it("an infinite loop is CODE_TIMEOUT", async () => {
    const r = await run("export default function () { while (true) {} }");
    expect(r.ok === false && r.error.code).toBe("CODE_TIMEOUT");
  });

  it("a 1 GB allocation is CODE_MEMORY", async () => {
    const r = await run("export default function () { return new ArrayBuffer(1024 ** 3).byteLength; }");
    expect(r.ok === false && r.error.code).toBe("CODE_MEMORY");
  });

  it("while (true) await ctx.fetch() is CODE_LIMIT, even when the code catches the refusal", async () => {
    const r = await run("export default async function (i, ctx) { while (true) { try { await ctx.fetch('https://example.org') } catch {} } }");
    expect(r.ok === false && r.error).toMatchObject({ code: "CODE_LIMIT", message: expect.stringContaining("10 outbound fetches") });
  });

  it("a syntax error is CODE_SYNTAX with line and column, at save (syntaxError) and at run", async () => {
    await loadSandbox();
    const code = "export default function (input) {\n  return input +;\n}";
    expect(syntaxError(code)).toMatchObject({ code: "CODE_SYNTAX", line: 2 });
    expect(syntaxError("export default () => 1")).toBeUndefined();
    const r = await run(code);
    expect(r.ok === false && r.error).toMatchObject({ code: "CODE_SYNTAX", line: 2, column: expect.any(Number) });
  });

  it("a throw reports its message, line and column", async () => {
    const r = await run("export default function () {\n\n  throw new TypeError('bad field');\n}");
    expect(r.ok === false && r.error).toMatchObject({ code: "CODE_ERROR", message: "TypeError: bad field", line: 3 });
  });

  it("a module without a default export function is CODE_NO_EXPORT", async () => {
    for (const code of ["export const x = 1;", "export default 42;", ""]) {
      const r = await run(code);
      expect(r.ok === false && r.error.code).toBe("CODE_NO_EXPORT");
    }
  });

  it("sees no process, env, fetch, bindings or host through globalThis and constructor tricks", async () => {
    const r = await run(`export default function (input, ctx) {
      const F = (function () {}).constructor.constructor;
      const g = F("return this")();
      return {
        process: typeof process, env: typeof env, fetch: typeof fetch, require: typeof require,
        same: g === globalThis, keys: Object.getOwnPropertyNames(globalThis).filter((k) => /host|call|process|env|wasm|fetch/i.test(k)),
        ctxKeys: Object.keys(ctx).sort(), frozen: Object.isFrozen(ctx),
      };
    }`);
    expect(r).toMatchObject({ ok: true, output: { process: "undefined", env: "undefined", fetch: "undefined", require: "undefined", same: true, keys: [], ctxKeys: ["fetch", "fhir", "hl7", "log"], frozen: true } });
  });

  it("import() of a URL and a static import both fail", async () => {
    const dyn = await run("export default async function () { return await import('https://example.org/x.js'); }");
    expect(dyn.ok === false && dyn.error.code).toBe("CODE_ERROR");
    const stat = await run("import x from 'https://example.org/x.js';\nexport default () => x;");
    expect(stat.ok).toBe(false);
  });

  it("prototype pollution stays in its run", async () => {
    const polluted = await run("export default function () { Object.prototype.polluted = 'yes'; Array.prototype.map = () => 'hijacked'; globalThis.leak = 1; return [1].map((x) => x); }");
    expect(polluted).toMatchObject({ ok: true, output: "hijacked" });
    const next = await run("export default function () { return { polluted: ({}).polluted ?? null, map: [1].map((x) => x + 1), leak: typeof leak }; }");
    expect(next).toMatchObject({ ok: true, output: { polluted: null, map: [2], leak: "undefined" } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("an output over its size limit is CODE_LIMIT; deep recursion fails the run, not the service", async () => {
    const big = await run("export default () => 'x'.repeat(2000)", {}, { outputChars: 1000 });
    expect(big.ok === false && big.error.code).toBe("CODE_LIMIT");
    const deep = await run("const f = (n) => f(n + 1) + 1; export default () => f(0);");
    expect(deep.ok).toBe(false);
    expect(await run("export default (i) => i * 2", 21)).toMatchObject({ ok: true, output: 42 });
  });
});
