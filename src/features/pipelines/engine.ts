// The execution engine: runs a checked definition node by node in topological
// order. State is plain JSON so a host (a request, a Durable Object, a step
// session) can checkpoint it after every node and resume after an eviction.
import { clip } from "../../platform/db/size";
import { ApiError } from "../../platform/errors";
import { DEFAULT_EXPRESSION_STEPS, withStepLimit } from "../../platform/step-budget";
import type { Definition, PipelineNode, RetryPolicy } from "./definition";
import { NodeFailure } from "./node-failure";
import type { NodeContext, NodeLog, NodeType, TriggerInfo } from "./node-type";
import { plainJson } from "./plain-json";
import { type NodeRegistry, outputPorts } from "./registry";
import type { PipelineServices } from "./services";
import { checkDefinition } from "./validate-definition";

export type NodeStatus = "pending" | "waiting" | "completed" | "failed" | "skipped" | "reused";

export interface NodeError {
  code: string;
  message: string;
  node_id: string;
  node_type: string;
  /** What the node said about the failure beyond its message (NodeFailure.details). */
  details?: Record<string, unknown>;
}

export interface NodeState {
  status: NodeStatus;
  node_type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  logs: NodeLog[];
  error?: NodeError;
  attempts: number;
  started_at?: string;
  finished_at?: string;
  duration_ms: number;
  wait_until?: number;
  would_write?: { target: string; payload: unknown }[];
}

export interface RunState {
  inputs: unknown;
  nodes: Record<string, NodeState>;
  execution_output?: { value: unknown };
  /** Set when a node with on_error "stop" failed: nothing more runs. */
  stopped_by?: NodeError;
  /** Input port values given by the caller for a node (retry from a node). */
  input_overrides?: Record<string, Record<string, unknown>>;
}

export interface RunOptions {
  orgId: string;
  executionId: string;
  testMode: boolean;
  trigger: TriggerInfo;
  services: PipelineServices;
  /** Waits up to this long are slept inline; longer ones park the node as "waiting" (durable hosts) or fail. */
  inlineWaitMaxMs: number;
  durableWaits: boolean;
  /** The steps one node's expressions may take together (the organization's expressionSteps limit); the default without it. */
  expressionSteps?: () => Promise<number>;
}

const defaultSteps = () => Promise.resolve(DEFAULT_EXPRESSION_STEPS);

interface PlannedNode {
  node: PipelineNode;
  type: NodeType<unknown>;
  config: unknown;
  outgoing: boolean;
}

/** A definition checked and ordered once, reusable across executions. */
export class ExecutionPlan {
  private constructor(
    readonly definition: Definition,
    readonly order: string[],
    readonly nodes: Map<string, PlannedNode>,
    readonly incoming: Map<string, Definition["connections"]>,
    readonly registry: NodeRegistry,
  ) {}

  static compile(raw: unknown, registry: NodeRegistry): ExecutionPlan {
    const { definition, configs } = checkDefinition(raw, registry);
    const incoming = new Map<string, Definition["connections"]>();
    const hasOutgoing = new Set<string>();
    const indegree = new Map(definition.nodes.map((n) => [n.id, 0]));
    for (const c of definition.connections) {
      incoming.set(c.to.node, [...(incoming.get(c.to.node) ?? []), c]);
      hasOutgoing.add(c.from.node);
      indegree.set(c.to.node, (indegree.get(c.to.node) ?? 0) + 1);
    }
    // Kahn's algorithm, keeping definition order among ready nodes so runs are deterministic.
    const order: string[] = [];
    const ready = definition.nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
    while (ready.length) {
      const id = ready.shift() as string;
      order.push(id);
      for (const c of definition.connections) {
        if (c.from.node !== id) continue;
        const left = (indegree.get(c.to.node) ?? 0) - 1;
        indegree.set(c.to.node, left);
        if (left === 0) ready.push(c.to.node);
      }
    }
    const nodes = new Map<string, PlannedNode>();
    for (const node of definition.nodes) {
      const type = registry.get(node.type) as NodeType<unknown>;
      nodes.set(node.id, { node, type, config: configs.get(node.id), outgoing: hasOutgoing.has(node.id) });
    }
    return new ExecutionPlan(definition, order, nodes, incoming, registry);
  }

  /** Nodes downstream of `id` (excluding it). */
  descendants(id: string): Set<string> {
    const out = new Set<string>();
    const stack = [id];
    while (stack.length) {
      const cur = stack.pop() as string;
      for (const c of this.definition.connections) {
        if (c.from.node === cur && !out.has(c.to.node)) {
          out.add(c.to.node);
          stack.push(c.to.node);
        }
      }
    }
    return out;
  }

  initialState(inputs: unknown): RunState {
    const nodes: Record<string, NodeState> = {};
    for (const [id, p] of this.nodes) nodes[id] = { status: "pending", node_type: p.type.id, logs: [], attempts: 0, duration_ms: 0 };
    return { inputs, nodes };
  }
}

const bodyPlans = new WeakMap<object, ExecutionPlan>();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const DEFAULT_RETRY: RetryPolicy = { max_attempts: 1, backoff_ms: 0, backoff_factor: 1 };

export class ExecutionRun {
  constructor(
    readonly plan: ExecutionPlan,
    readonly state: RunState,
    readonly options: RunOptions,
  ) {}

  /** The state of a node of this plan. */
  node(id: string): NodeState {
    const st = this.state.nodes[id];
    if (!st) throw new ApiError(400, "NODE_NOT_FOUND", `No node ${id} in this pipeline`);
    return st;
  }

  /** The next node to run (a waiting node counts), marking unreached nodes skipped on the way. */
  nextNode(): string | undefined {
    if (this.state.stopped_by) return undefined;
    for (const id of this.plan.order) {
      const st = this.node(id);
      if (st.status === "waiting") return id;
      if (st.status !== "pending") continue;
      const planned = this.plan.nodes.get(id) as PlannedNode;
      if (planned.type.trigger) {
        const fires = !this.options.trigger.nodeId || this.options.trigger.nodeId === id;
        if (fires) return id;
        st.status = "skipped";
        continue;
      }
      if (this.state.input_overrides?.[id] || this.deliveredInputs(id)) return id;
      st.status = "skipped";
    }
    return undefined;
  }

  /** Runs every remaining node; waits are slept inline or parked per the options. */
  async runToEnd(): Promise<void> {
    for (let id = this.nextNode(); id; id = this.nextNode()) {
      const st = this.node(id);
      if (st.status === "waiting") {
        if (this.options.durableWaits) return;
        await sleep((st.wait_until ?? 0) - Date.now());
      }
      await this.runNode(id);
    }
  }

  private deliveredInputs(id: string): Record<string, unknown> | undefined {
    const planned = this.plan.nodes.get(id) as PlannedNode;
    let any = false;
    const inputs: Record<string, unknown> = {};
    for (const c of this.plan.incoming.get(id) ?? []) {
      const src = this.node(c.from.node);
      if (!src.outputs || !(c.from.port in src.outputs)) continue;
      any = true;
      const value = src.outputs[c.from.port];
      const port = planned.type.inputs.find((p) => p.name === c.to.port);
      if (port?.multiple) inputs[c.to.port] = [...((inputs[c.to.port] as unknown[]) ?? []), value];
      else inputs[c.to.port] = value;
    }
    return any ? inputs : undefined;
  }

  /**
   * Runs one node (or accepts `override` as its outputs, for step sessions and
   * retries) and records the result. Never throws for node failures.
   */
  async runNode(id: string, override?: { outputs?: Record<string, unknown>; inputs?: Record<string, unknown> }): Promise<NodeState> {
    const planned = this.plan.nodes.get(id);
    if (!planned) throw new ApiError(400, "NODE_NOT_FOUND", `No node ${id} in this pipeline`);
    const st = this.node(id);
    const resumed = st.status === "waiting";
    const inputs =
      override?.inputs ??
      this.state.input_overrides?.[id] ??
      (planned.type.trigger ? { event: this.state.inputs } : (this.deliveredInputs(id) ?? {}));
    const started = Date.now();
    if (!resumed) {
      st.started_at = new Date(started).toISOString();
      st.logs = [];
    }
    st.inputs = inputs;
    if (override?.outputs) {
      st.logs.push({ at: new Date().toISOString(), level: "info", message: "Outputs supplied by the caller; node not run" });
      return this.settle(st, "completed", started, this.declaredOutputs(planned, plainJson(override.outputs, "supplied outputs")));
    }
    const retry = planned.node.retry ?? DEFAULT_RETRY;
    let lastError: NodeError | undefined;
    for (let attempt = 1; attempt <= retry.max_attempts; attempt++) {
      st.attempts += 1;
      try {
        const result = await this.attempt(planned, st, inputs, resumed);
        if ("waitUntil" in result) {
          const wait = result.waitUntil - Date.now();
          if (wait <= this.options.inlineWaitMaxMs) {
            await sleep(wait);
            st.duration_ms += Date.now() - started;
            st.status = "waiting";
            return this.runNode(id, { inputs });
          }
          if (!this.options.durableWaits) {
            throw new NodeFailure("WAIT_NEEDS_ASYNC", `A wait of ${wait} ms needs an async execution (async: true)`);
          }
          st.status = "waiting";
          st.wait_until = result.waitUntil;
          st.duration_ms += Date.now() - started;
          return st;
        }
        // Plain JSON from here on: the state is checkpointed and sent over RPC (plain-json.ts).
        const outputs = plainJson(result.outputs, "node's output");
        if (result.executionOutput !== undefined) this.state.execution_output = { value: plainJson(result.executionOutput, "execution output") };
        return this.settle(st, "completed", started, this.declaredOutputs(planned, outputs));
      } catch (e) {
        lastError = toNodeError(e, id, planned.type.id);
        st.logs.push({ at: new Date().toISOString(), level: "error", message: `Attempt ${attempt}: ${lastError.message}` });
        if (attempt < retry.max_attempts && lastError.code !== "WAIT_NEEDS_ASYNC") {
          await sleep(retry.backoff_ms * retry.backoff_factor ** (attempt - 1));
        } else break;
      }
    }
    const error = lastError as NodeError;
    st.error = error;
    if (planned.node.on_error === "stop") this.state.stopped_by = error;
    const outputs = planned.node.on_error === "route" ? { error: { ...error, inputs } } : undefined;
    return this.settle(st, "failed", started, outputs);
  }

  private async attempt(planned: PlannedNode, st: NodeState, inputs: Record<string, unknown>, resumed: boolean) {
    const controller = new AbortController();
    const ctx: NodeContext<unknown> = {
      nodeId: planned.node.id,
      config: planned.config,
      inputs,
      orgId: this.options.orgId,
      executionId: this.options.executionId,
      testMode: this.options.testMode,
      trigger: this.options.trigger,
      services: this.options.services,
      signal: controller.signal,
      resumed,
      log: (level, message) => st.logs.push({ at: new Date().toISOString(), level, message }),
      wouldWrite: (target, payload) => {
        st.would_write = [...(st.would_write ?? []), { target, payload: plainJson(payload, "reported write") }];
      },
      runBody: (body, input) => this.runBody(body, input),
    };
    const run = () => withStepLimit(this.options.expressionSteps ?? defaultSteps, () => planned.type.run(ctx));
    const timeout = planned.node.timeout_ms;
    if (!timeout) return run();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new NodeFailure("NODE_TIMEOUT", `Node ${planned.node.id} timed out after ${timeout} ms`));
      }, timeout);
    });
    try {
      return await Promise.race([run(), expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async runBody(body: object, input: unknown): Promise<{ outputs: Record<string, unknown> }> {
    // Bodies are parts of a plan's parsed config, so the same object comes back for every item.
    let plan = bodyPlans.get(body);
    if (!plan) {
      plan = ExecutionPlan.compile(body, this.plan.registry);
      bodyPlans.set(body, plan);
    }
    const run = new ExecutionRun(plan, plan.initialState(input), { ...this.options, durableWaits: false });
    await run.runToEnd();
    if (run.state.stopped_by) {
      const e = run.state.stopped_by;
      throw new NodeFailure(e.code, `In node ${e.node_id}: ${e.message}`);
    }
    return { outputs: executionOutputs(run) as Record<string, unknown> };
  }

  private declaredOutputs(planned: PlannedNode, outputs: Record<string, unknown>): Record<string, unknown> {
    const names = new Set(outputPorts(planned.type, planned.config).map((p) => p.name));
    return Object.fromEntries(Object.entries(outputs).filter(([k]) => names.has(k)));
  }

  private settle(st: NodeState, status: NodeStatus, started: number, outputs?: Record<string, unknown>): NodeState {
    st.status = status;
    st.outputs = outputs;
    st.wait_until = undefined;
    st.finished_at = new Date().toISOString();
    st.duration_ms += Date.now() - started;
    return st;
  }
}

/**
 * Characters of a node's error message kept: it lands in the execution row's error columns and in
 * a failed message's error, and can quote its input (`$error($string($))`).
 */
export const MAX_ERROR_MESSAGE_CHARS = 4000;

export function toNodeError(e: unknown, nodeId: string, nodeType: string): NodeError {
  const known = e instanceof NodeFailure || e instanceof ApiError;
  const message = clip(known || e instanceof Error ? e.message : String(e), MAX_ERROR_MESSAGE_CHARS);
  const details = e instanceof NodeFailure && e.details ? { details: plainJson(e.details, "error details") as Record<string, unknown> } : {};
  return { code: known ? e.code : "NODE_FAILED", message, node_id: nodeId, node_type: nodeType, ...details };
}

/** Outputs of an execution: what a respond node set, else every sink node's outputs by node id. */
export function executionOutputs(run: ExecutionRun): unknown {
  if (run.state.execution_output) return run.state.execution_output.value;
  const out: Record<string, unknown> = {};
  for (const [id, p] of run.plan.nodes) {
    const st = run.node(id);
    if (!p.outgoing && (st.status === "completed" || st.status === "reused") && st.outputs) out[id] = st.outputs;
  }
  return out;
}

export type ExecutionStatus = "running" | "waiting" | "completed" | "failed";

export function executionStatus(run: ExecutionRun): ExecutionStatus {
  if (run.state.stopped_by) return "failed";
  const next = run.nextNode();
  if (!next) return "completed";
  return run.node(next).status === "waiting" ? "waiting" : "running";
}
