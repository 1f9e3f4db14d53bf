// Tenant JavaScript in QuickJS compiled to WebAssembly (quickjs-ng): each run gets a runtime and
// context of its own (its own heap, globals and memory limit), so nothing a run does to its globals
// reaches the next run or another organization. What the code can reach is only what `api` hands
// it, and values cross the boundary as JSON text. Locally workerd enforces no CPU limit on a
// Dynamic Worker Loader isolate, so the limits are QuickJS's: an interrupt handler (CPU slices
// summed, a wall deadline and an operation budget for platforms whose clock stands still while
// code runs), the runtime's memory limit and stack size. docs/code.md.
import variant from "@jitl/quickjs-ng-wasmfile-release-sync";
import wasmModule from "@jitl/quickjs-ng-wasmfile-release-sync/wasm";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from "quickjs-emscripten-core";

export const CODE_ERRORS = ["CODE_TIMEOUT", "CODE_MEMORY", "CODE_LIMIT", "CODE_ERROR", "CODE_SYNTAX", "CODE_NO_EXPORT"] as const;
export type CodeErrorCode = (typeof CODE_ERRORS)[number];

export interface CodeError {
  code: CodeErrorCode;
  message: string;
  /** The code a ctx helper (ctx.hl7, ctx.x12) failed with, when that failure ended the run uncaught. */
  helperCode?: string;
  line?: number;
  column?: number;
}

export interface CodeLimits {
  /** Time the code itself runs (awaits on host calls excluded), ms. */
  cpuMs: number;
  /** The whole run, host calls included, ms. */
  wallMs: number;
  memoryBytes: number;
  /** The returned value's JSON, characters. */
  outputChars: number;
  fhirCalls: number;
  fetches: number;
  /** Calls of the pure helpers (ctx.hl7, ctx.x12). */
  helperCalls: number;
  logLines: number;
}

export const DEFAULT_LIMITS: CodeLimits = { cpuMs: 50, wallMs: 5_000, memoryBytes: 32 * 1024 * 1024, outputChars: 1024 * 1024, fhirCalls: 50, fetches: 10, helperCalls: 1_000, logLines: 100 };
/** What a node may raise its limits to. */
export const MAX_LIMITS: CodeLimits = { cpuMs: 1_000, wallMs: 30_000, memoryBytes: 128 * 1024 * 1024, outputChars: 8 * 1024 * 1024, fhirCalls: 500, fetches: 100, helperCalls: 10_000, logLines: 1_000 };

/** A capability the code reaches as `ctx.<path>` (dots nest: "fhir.read"); arguments and answer are JSON. */
export interface HostFunction {
  /** Which per-run budget a call counts against ("helperCalls" for the codecs); "none" for none. */
  budget: "fhirCalls" | "fetches" | "helperCalls" | "none";
  /** Sync helpers answer at once (codecs); the others answer a promise inside the sandbox. */
  sync?: boolean;
  /**
   * JavaScript source of `(answer, call) => value`, run inside the sandbox on each answer: it may
   * add methods to the plain JSON answer, each calling the sync helpers by name (`call(name, ...args)`).
   */
  decorate?: string;
  /** Throws an error with a string `code` (the codec's) that the code sees as `err.code`. */
  call(args: unknown[]): unknown;
}

export interface TenantApi {
  functions: Record<string, HostFunction>;
  /** Plain JSON members of ctx, frozen (`secrets`: the node's configured connector secrets). */
  values?: Record<string, unknown>;
  log(message: string): void;
}

export interface RunRequest {
  code: string;
  input: unknown;
  ctxApi: TenantApi;
  limits?: Partial<CodeLimits>;
  /**
   * Whose isolate (the organization): runs of the same code in the same scope reuse its loaded
   * isolate (`scope:sha256(code)`), module state included. Without one, the run's isolate is its own.
   */
  scope?: string;
}

/** Which isolate ran the code (`scope:hash`, or the hash alone), and whether it was loaded before (no compile). */
export interface IsolateInfo {
  id: string;
  reused: boolean;
}

export type RunResult = { ok: true; output: unknown; logs: string[]; isolate: IsolateInfo } | { ok: false; error: CodeError; logs: string[]; isolate: IsolateInfo };

/** A host call refused for a budget: the run ends with CODE_LIMIT even if the code catches it. */
class LimitReached extends Error {}

const FILE = "node.js";
/** Interrupt-handler calls per ms of CPU (QuickJS calls it every few thousand operations); measured in docs/code.md. */
const TICKS_PER_MS = 40;
/** QuickJS's stack limit: well below the host's, so deep recursion is QuickJS's RangeError, not the Worker's. */
const STACK_BYTES = 160 * 1024;
/**
 * QuickJS's memory limit does not count every buffer (typed arrays' backing stores escape it), so
 * the instance's WebAssembly memory is watched too: a run that grows it past this fails CODE_MEMORY.
 */
const WASM_CEILING_BYTES = 96 * 1024 * 1024;

let loaded: Promise<QuickJSWASMModule> | undefined;
let ready: QuickJSWASMModule | undefined;

/** The QuickJS WebAssembly instance, created once per isolate (the costly part of a cold start). */
export function loadSandbox(): Promise<QuickJSWASMModule> {
  loaded ??= newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule })).then(
    (m) => {
      ready = m;
      return m;
    },
    (err) => {
      loaded = undefined;
      throw err;
    },
  );
  return loaded;
}

/** The limits asked for, each capped at MAX_LIMITS. */
export function limitsOf(asked: Partial<CodeLimits> = {}): CodeLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(out) as (keyof CodeLimits)[]) {
    const v = asked[key];
    if (typeof v === "number" && v > 0) out[key] = Math.min(v, MAX_LIMITS[key]);
  }
  return out;
}

/**
 * Parses `code` as a module without running it: undefined when it parses, else the syntax error
 * with its place. Undefined too before the sandbox is loaded (`loadSandbox`): a run reports it then.
 */
export function syntaxError(code: string): CodeError | undefined {
  if (!ready) return undefined;
  const rt = ready.newRuntime();
  rt.setMemoryLimit(DEFAULT_LIMITS.memoryBytes);
  const started = Date.now();
  rt.setInterruptHandler(() => Date.now() - started > 1_000);
  const vm = rt.newContext();
  try {
    const r = vm.evalCode(code, FILE, { type: "module", compileOnly: true });
    if (!r.error) {
      r.value.dispose();
      return undefined;
    }
    const err = errorOf(vm, r.error, true);
    return err.code === "CODE_SYNTAX" ? err : undefined;
  } finally {
    vm.dispose();
    rt.dispose();
  }
}

/**
 * A loaded isolate: a QuickJS runtime and context with the module evaluated and its default export
 * at hand. Runs of the same code in the same scope (the organization) reuse one, as a Worker
 * Loader reuses the isolate of an id: its module state lives on between them, like a Worker's
 * globals between requests. Another version of the code (another hash) or another scope never
 * meets it. One run at a time holds an isolate; concurrent runs of one code load one each.
 */
interface Loaded {
  rt: QuickJSRuntime;
  vm: QuickJSContext;
  fn?: QuickJSHandle;
  /** The ctx factory (BOOTSTRAP), evaluated once per isolate. */
  factory?: QuickJSHandle;
  decorators?: { source: string; handle: QuickJSHandle };
}

/** Idle isolates kept per QuickJS instance, least recently used first out. */
const MAX_CACHED = 32;
let cache = new Map<string, Loaded[]>();
let cachedCount = 0;
const cacheStats = { compiled: 0, reused: 0 };

/** How many isolates were loaded (a compile) and reused since the instance started: for tests and the benchmark. */
export function sandboxCacheStats(): { compiled: number; reused: number; cached: number } {
  return { ...cacheStats, cached: cachedCount };
}

/** The code's SHA-256, hex: with the scope, the loaded isolate's id. */
export async function codeHash(code: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(code)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function checkout(key: string): Loaded | undefined {
  const idle = cache.get(key);
  const loaded = idle?.pop();
  if (!loaded) return undefined;
  cachedCount--;
  cache.delete(key);
  if (idle?.length) cache.set(key, idle);
  return loaded;
}

function release(key: string, loaded: Loaded) {
  const idle = cache.get(key) ?? [];
  cache.delete(key);
  idle.push(loaded);
  cache.set(key, idle);
  cachedCount++;
  while (cachedCount > MAX_CACHED) {
    const [oldestKey, oldest] = cache.entries().next().value as [string, Loaded[]];
    const evicted = oldest.shift();
    if (!oldest.length) cache.delete(oldestKey);
    cachedCount--;
    if (evicted) disposeLoaded(evicted);
  }
}

function disposeLoaded(l: Loaded) {
  for (const h of [l.fn, l.factory, l.decorators?.handle]) if (h?.alive) h.dispose();
  dispose(l.vm, l.rt);
}

/** The one entry point for tenant code (the code node; later custom tools and node types). */
export async function runTenantCode(req: RunRequest): Promise<RunResult> {
  const qjs = await loadSandbox();
  const limits = limitsOf(req.limits);
  const logs: string[] = [];
  const used = { fhirCalls: 0, fetches: 0, helperCalls: 0 };
  /** Codes the helpers failed with in this run: only those may name the node's error. */
  const helperCodes = new Set<string>();
  const hash = await codeHash(req.code);
  const key = req.scope === undefined ? undefined : `${req.scope}:${hash}`;
  const instanceCache = cache;
  const reused = key === undefined ? undefined : checkout(key);
  const isolate = { id: key ?? hash, reused: reused !== undefined };
  const loaded: Loaded = reused ?? (() => {
    const rt = qjs.newRuntime();
    rt.setMaxStackSize(STACK_BYTES);
    return { rt, vm: rt.newContext() };
  })();
  const { rt, vm } = loaded;
  rt.setMemoryLimit(limits.memoryBytes);
  const startedAt = Date.now();
  let cpu = 0;
  let ticks = 0;
  let slice: number | undefined;
  let stop: CodeError | undefined;
  // An interrupted run leaves objects QuickJS's runtime cannot free (it aborts the whole instance
  // when asked to), and WebAssembly memory never shrinks: such a run's instance is retired instead,
  // left to in-flight runs and the garbage collector, and the next run starts a new one.
  let retire = false;
  /** Whether the isolate may serve the next run of this code: loaded whole, and no limit hit. */
  let reusable = false;
  const memory = qjs.getWasmMemory();
  let stopped: (e: CodeError) => void = () => {};
  const stopping = new Promise<CodeError>((resolve) => {
    stopped = resolve;
  });
  const fail = (e: CodeError) => {
    stop ??= e;
    stopped(stop);
  };
  // Only the code's own slices are interrupted: host-side reads of its values (errors, output) are not.
  rt.setInterruptHandler(() => {
    if (slice === undefined) return false;
    if (memory.buffer.byteLength > WASM_CEILING_BYTES) fail({ code: "CODE_MEMORY", message: "The code used more memory than its limit" });
    if (stop) {
      retire = true;
      return true;
    }
    ticks++;
    const now = performance.now();
    if (cpu + (slice === undefined ? 0 : now - slice) > limits.cpuMs || ticks > limits.cpuMs * TICKS_PER_MS) fail({ code: "CODE_TIMEOUT", message: `The code ran longer than its CPU limit of ${limits.cpuMs} ms` });
    else if (Date.now() - startedAt > limits.wallMs) fail({ code: "CODE_TIMEOUT", message: `The run took longer than its wall-time limit of ${limits.wallMs} ms` });
    retire ||= stop !== undefined;
    return stop !== undefined;
  });
  /** Every entry into the sandbox counts towards its CPU time. */
  const inside = <T>(f: () => T): T => {
    slice = performance.now();
    try {
      return f();
    } finally {
      cpu += performance.now() - slice;
      slice = undefined;
    }
  };
  const open = { deferreds: new Set<{ alive: boolean; dispose(): void }>(), closed: false };
  let wallTimer: ReturnType<typeof setTimeout> | undefined;
  const failed = (error: CodeError): RunResult => ({ ok: false, error, logs, isolate });
  try {
    const handles: QuickJSHandle[] = [];
    const keep = (h: QuickJSHandle) => {
      handles.push(h);
      return h;
    };
    try {
      if (!loaded.fn) {
        cacheStats.compiled++;
        const mod = inside(() => vm.evalCode(req.code, FILE, { type: "module" }));
        if (mod.error) return failed(stop ?? errorOf(vm, mod.error, true));
        // A module with top-level await answers a promise of its namespace.
        const ns = await settle(vm, mod.value, inside, rt, helperCodes);
        if ("error" in ns) return failed(stop ?? ns.error);
        keep(ns.value);
        const fn = vm.getProp(ns.value, "default");
        if (vm.typeof(fn) !== "function") {
          fn.dispose();
          return failed({ code: "CODE_NO_EXPORT", message: "The module has no default export function: write `export default async function (input, ctx) { ... }`" });
        }
        loaded.fn = fn;
      } else cacheStats.reused++;
      const host = keep(hostBridge(loaded, req.ctxApi, limits, used, logs, fail, open, helperCodes, () => inside(() => rt.executePendingJobs())));
      reusable = true;
      const inputHandle = keep(jsonIn(vm, req.input, inside));
      const called = inside(() => vm.callFunction(loaded.fn as QuickJSHandle, vm.undefined, inputHandle, host));
      if (called.error) return failed(stop ?? errorOf(vm, called.error, false, helperCodes));
      wallTimer = setTimeout(() => fail({ code: "CODE_TIMEOUT", message: `The run took longer than its wall-time limit of ${limits.wallMs} ms` }), Math.max(0, limits.wallMs - (Date.now() - startedAt)));
      // A limit reached while the code awaits ends the run at once: the code is not resumed.
      const result = await Promise.race([settle(vm, called.value, inside, rt, helperCodes), stopping.then((error) => ({ error }))]);
      if ("error" in result) return failed(stop ?? result.error);
      keep(result.value);
      if (stop) return failed(stop);
      const out = jsonOut(vm, result.value, limits, inside);
      return "error" in out ? failed(stop ?? out.error) : { ok: true, output: out.value, logs, isolate };
    } finally {
      for (const h of handles) if (h.alive) h.dispose();
    }
  } catch (err) {
    // The host's own stack ran out inside the WebAssembly: the run fails, the next starts on a new instance.
    if (!(err instanceof RangeError)) throw err;
    retire = true;
    return failed({ code: "CODE_LIMIT", message: "The code nested calls deeper than its stack allows" });
  } finally {
    if (wallTimer !== undefined) clearTimeout(wallTimer);
    const limited = stop !== undefined;
    fail({ code: "CODE_TIMEOUT", message: "The run ended" });
    // Host calls still in flight find the context closed when they land, and touch nothing; a ctx
    // the code kept in its module state refuses every call once its run has ended.
    open.closed = true;
    if (retire || memory.buffer.byteLength > WASM_CEILING_BYTES) retireInstance(qjs);
    else {
      for (const d of open.deferreds) if (d.alive) d.dispose();
      if (key !== undefined && reusable && !limited && cache === instanceCache && ready === qjs) release(key, loaded);
      else disposeLoaded(loaded);
    }
  }
}

function retireInstance(qjs: QuickJSWASMModule) {
  if (ready !== qjs) return;
  loaded = undefined;
  ready = undefined;
  forgetCache();
}

/** The instance's loaded isolates go with it (left to the garbage collector, as the instance is). */
function forgetCache() {
  cache = new Map();
  cachedCount = 0;
}

function dispose(vm: QuickJSContext, rt: { dispose(): void }) {
  try {
    vm.dispose();
    rt.dispose();
  } catch {
    // QuickJS aborted on a runtime it could not free whole: the next run starts a new instance.
    loaded = undefined;
    ready = undefined;
    forgetCache();
  }
}

/** Awaits a sandbox value that may be a promise, pumping the sandbox's jobs as host calls settle. */
async function settle(vm: QuickJSContext, handle: QuickJSHandle, inside: <T>(f: () => T) => T, rt: { executePendingJobs(): unknown }, helperCodes?: ReadonlySet<string>): Promise<{ value: QuickJSHandle } | { error: CodeError }> {
  const state = vm.getPromiseState(handle);
  if (state.type === "fulfilled" && state.notAPromise) return { value: handle };
  const settled = vm.resolvePromise(handle);
  inside(() => rt.executePendingJobs());
  handle.dispose();
  const r = await settled;
  if (r.error) {
    const error = errorOf(vm, r.error, false, helperCodes);
    return { error };
  }
  return { value: r.value };
}

function jsonIn(vm: QuickJSContext, value: unknown, inside: <T>(f: () => T) => T): QuickJSHandle {
  const text = JSON.stringify(value ?? null);
  const r = inside(() => vm.evalCode(`JSON.parse(${JSON.stringify(text)})`, "input.js"));
  return vm.unwrapResult(r);
}

function jsonOut(vm: QuickJSContext, handle: QuickJSHandle, limits: CodeLimits, inside: <T>(f: () => T) => T): { value: unknown } | { error: CodeError } {
  const json = vm.getProp(vm.global, "JSON");
  const stringify = vm.getProp(json, "stringify");
  const r = inside(() => vm.callFunction(stringify, json, handle));
  stringify.dispose();
  json.dispose();
  if (r.error) return { error: errorOf(vm, r.error) };
  const text = vm.typeof(r.value) === "string" ? vm.getString(r.value) : undefined;
  r.value.dispose();
  if (text === undefined) return { value: null };
  if (text.length > limits.outputChars) return { error: { code: "CODE_LIMIT", message: `The output is ${text.length} characters of JSON, over the limit of ${limits.outputChars}` } };
  return { value: JSON.parse(text) };
}

// The `ctx` object, built inside the sandbox from two host functions it closes over (so no global
// names them): `sync(name, argsJson)` answers JSON text, `async(name, argsJson)` a promise of it.
const BOOTSTRAP = `(function (names, syncNames, decorators, values, callSync, callAsync, log) {
  const parse = (t) => (t === undefined ? undefined : JSON.parse(t));
  const call = (name, ...args) => parse(callSync(name, JSON.stringify(args)));
  const ctx = {};
  for (const name of names) {
    const path = name.split(".");
    let at = ctx;
    for (const p of path.slice(0, -1)) at = at[p] ??= {};
    const isSync = syncNames.includes(name);
    const decorate = decorators[name] ?? ((v) => v);
    at[path[path.length - 1]] = isSync
      ? (...args) => decorate(call(name, ...args), call)
      : async (...args) => decorate(parse(await callAsync(name, JSON.stringify(args))), call);
  }
  for (const [k, v] of Object.entries(values)) ctx[k] = v;
  ctx.log = (...args) => log(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  const freeze = (o) => { for (const v of Object.values(o)) if (typeof v === "object") freeze(v); return Object.freeze(o); };
  return freeze(ctx);
})`;

function hostBridge(
  loaded: Loaded,
  api: TenantApi,
  limits: CodeLimits,
  used: { fhirCalls: number; fetches: number; helperCalls: number },
  logs: string[],
  fail: (e: CodeError) => void,
  open: { deferreds: Set<{ alive: boolean; dispose(): void }>; closed: boolean },
  helperCodes: Set<string>,
  pump: () => unknown,
): QuickJSHandle {
  const charge = (f: HostFunction) => {
    if (f.budget === "none") return;
    used[f.budget]++;
    if (used[f.budget] > limits[f.budget]) {
      const what = { fetches: "outbound fetches", fhirCalls: "FHIR calls", helperCalls: "ctx.hl7/ctx.x12 calls" }[f.budget];
      const e = { code: "CODE_LIMIT" as const, message: `The run made more than ${limits[f.budget]} ${what}` };
      fail(e);
      throw new LimitReached(e.message);
    }
  };
  const { vm } = loaded;
  const lookup = (nameHandle: QuickJSHandle): HostFunction => {
    // A ctx kept in module state from an ended run reaches nothing (not its budget, not its mode).
    if (open.closed) throw new Error("This ctx belongs to a run that has ended");
    const f = api.functions[vm.getString(nameHandle)];
    if (!f) throw new Error("No such function");
    return f;
  };
  const callSync = vm.newFunction("callSync", (nameH, argsH) => {
    let f: HostFunction | undefined;
    try {
      f = lookup(nameH);
      charge(f);
      const answer = f.call(JSON.parse(vm.getString(argsH)) as unknown[]);
      return answer === undefined ? vm.undefined : vm.newString(JSON.stringify(answer));
    } catch (err) {
      return { error: sandboxError(vm, err, f?.budget === "helperCalls" ? helperCodes : undefined) };
    }
  });
  const callAsync = vm.newFunction("callAsync", (nameH, argsH) => {
    if (open.closed) return { error: vm.newError("This ctx belongs to a run that has ended") };
    const deferred = vm.newPromise();
    open.deferreds.add(deferred);
    const args = vm.getString(argsH);
    let run: Promise<unknown>;
    try {
      const f = lookup(nameH);
      charge(f);
      run = Promise.resolve().then(() => f.call(JSON.parse(args) as unknown[]));
    } catch (err) {
      run = Promise.reject(err);
    }
    const land = (answer: { value: unknown } | { error: unknown }) => {
      open.deferreds.delete(deferred);
      if (open.closed || !deferred.alive) return;
      try {
        if ("value" in answer) {
          const h = answer.value === undefined ? vm.undefined : vm.newString(JSON.stringify(answer.value));
          deferred.resolve(h);
          h.dispose();
        } else {
          const e = sandboxError(vm, answer.error);
          deferred.reject(e);
          e.dispose();
        }
      } catch {
        // The answer did not fit in the sandbox's memory.
        fail({ code: "CODE_MEMORY", message: "A host call's answer did not fit in the code's memory limit" });
        return;
      }
      pump();
    };
    run.then(
      (value) => land({ value }),
      (error) => land({ error }),
    );
    return deferred.handle;
  });
  const log = vm.newFunction("log", (msgH) => {
    if (open.closed || logs.length >= limits.logLines) return;
    const message = vm.getString(msgH).slice(0, 2_000);
    logs.push(message);
    api.log(message);
  });
  const names = Object.keys(api.functions);
  loaded.factory ??= vm.unwrapResult(vm.evalCode(BOOTSTRAP, "ctx.js"));
  const namesH = jsonHandle(vm, names);
  const syncH = jsonHandle(vm, names.filter((n) => api.functions[n]?.sync));
  const decorators = names.filter((n) => api.functions[n]?.decorate).map((n) => `${JSON.stringify(n)}: (${api.functions[n]?.decorate})`);
  const source = `({${decorators.join(", ")}})`;
  if (loaded.decorators?.source !== source) {
    loaded.decorators?.handle.dispose();
    loaded.decorators = { source, handle: vm.unwrapResult(vm.evalCode(source, "helpers.js")) };
  }
  const decoratorsH = loaded.decorators.handle;
  const valuesH = jsonHandle(vm, api.values ?? {});
  const ctx = vm.unwrapResult(vm.callFunction(loaded.factory, vm.undefined, namesH, syncH, decoratorsH, valuesH, callSync, callAsync, log));
  for (const h of [namesH, syncH, valuesH, callSync, callAsync, log]) h.dispose();
  return ctx;
}

function jsonHandle(vm: QuickJSContext, value: unknown): QuickJSHandle {
  return vm.unwrapResult(vm.evalCode(`(${JSON.stringify(value)})`, "json.js"));
}

/**
 * A host error as a sandbox Error; a string `code` on it is kept as `err.code`, and a helper's
 * (codec's) code is noted in `helperCodes`, so that, uncaught, it names the node's error.
 */
function sandboxError(vm: QuickJSContext, err: unknown, helperCodes?: Set<string>): QuickJSHandle {
  const e = vm.newError(messageOf(err));
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && !(err instanceof LimitReached)) {
    helperCodes?.add(code);
    const h = vm.newString(code);
    vm.setProp(e, "code", h);
    h.dispose();
  }
  return e;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A sandbox error as a CodeError: its kind from QuickJS's own errors, its place from the stack's first frame in the code. */
function errorOf(vm: QuickJSContext, handle: QuickJSHandle, evaluating = false, helperCodes?: ReadonlySet<string>): CodeError {
  // Read field by field: QuickJS's dump of an uncatchable (interrupted) error leaves objects behind.
  const field = (name: string) => {
    if (vm.typeof(handle) !== "object") return undefined;
    const h = vm.getProp(handle, name);
    const v = vm.typeof(h) === "string" ? vm.getString(h) : undefined;
    h.dispose();
    return v;
  };
  const e = vm.typeof(handle) === "object" ? { name: field("name"), message: field("message"), stack: field("stack"), code: field("code") } : { message: vm.typeof(handle) === "string" ? vm.getString(handle) : String(vm.typeof(handle)) };
  handle.dispose();
  const message = String(e.message ?? "The code failed");
  const place = new RegExp(`${FILE.replace(".", "\\.")}:(\\d+):(\\d+)`).exec(e.stack ?? "");
  const at = place ? { line: Number(place[1]), column: Number(place[2]) } : {};
  if (e.name === "InternalError" && /out of memory/i.test(message)) return { code: "CODE_MEMORY", message: "The code used more memory than its limit" };
  if (e.name === "InternalError" && /interrupted/i.test(message)) return { code: "CODE_TIMEOUT", message: "The code ran longer than its limit" };
  if (e.name === "RangeError" && /stack overflow|call stack/i.test(message)) return { code: "CODE_LIMIT", message: "The code nested calls deeper than its stack allows", ...at };
  if (e.name === "SyntaxError" && evaluating) return { code: "CODE_SYNTAX", message, ...at };
  // A helper's code names the error only if a helper of this run failed with it (the code cannot forge one).
  const helper = "code" in e && e.code && helperCodes?.has(e.code) ? { helperCode: e.code } : {};
  return { code: "CODE_ERROR", message: e.name && e.name !== "Error" ? `${e.name}: ${message}` : message, ...at, ...helper };
}
