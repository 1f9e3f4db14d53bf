// The pipeline editor: the catalog, the canvas (React Flow) where only compatible ports connect,
// the selected node's configuration, live validation by the service with errors drawn on the
// nodes, save (a changed definition becomes a new version), deploy/undeploy, and a run with
// inputs and test mode whose per-node results are drawn on the canvas; the copilot proposes a
// pipeline or a change, applied to the canvas only on request and undoable until saved.
import { addEdge, Background, type Connection, Controls, type Edge, type FinalConnectionState, type FitViewOptions, Panel, ReactFlow, type ReactFlowInstance, useEdgesState, useNodesState } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { portsCompatible } from "../../../src/features/pipelines/port-compatibility";
import { ErrorMessage, Loading } from "../components/States";
import type { Catalog, CatalogNode } from "../editor/catalog";
import { ConfigPanel } from "../editor/ConfigPanel";
import { connectionRefusal, type PortEnd } from "../editor/connection-check";
import { CopilotPanel, type Proposal } from "../editor/CopilotPanel";
import { type CanvasNode, type Definition, type DefinitionNode, type Finding, freshId, type NodeRunStatus, toCanvas, toDefinition } from "../editor/definition";
import { NodeCard } from "../editor/NodeCard";
import { NodeDataPanes } from "../editor/NodeDataPanes";
import { NodeDocs } from "../editor/NodeDocs";
import "../editor/editor-panes.css";
import { Palette } from "../editor/Palette";
import { VersionsPanel } from "../editor/VersionsPanel";
import type { ExecutionDetail, ExecutionSummary } from "../executions/types";
import { ApiFailure, api } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import type { PipelineSummary } from "./Pipelines";

const NODE_TYPES = { pipeline: NodeCard };
const VALIDATE_DELAY_MS = 400;
// The view fits the whole pipeline, never zoomed past 100%: fitted to one node, the canvas
// would be zoomed 2x and the next node added would land outside it, under the side panel. Nor
// below 80%: under it a card's 0.8rem text shrinks past reading (three nodes fitted at 50% were
// about 5 px); a pipeline wider than that stays centred and the rest is a pan away.
const FIT_VIEW: FitViewOptions<CanvasNode> = { padding: 0.2, maxZoom: 1, minZoom: 0.8 };
// New nodes go in columns a little wider than a card (max-width 16rem), so they never cover each
// other's ports and three still fit the canvas at the readable zoom.
const NEW_COLUMN = 290;
const NEW_ROW = 200;

/** A handle as React Flow names it: its node, its id (the port) and whether it is an output. */
interface HandleRef {
  nodeId: string;
  handleId: string | null;
  output: boolean;
}

/** The handle under a click or a drop, read from the attributes React Flow puts on it. */
function handleAt(target: EventTarget | null): HandleRef | undefined {
  const el = target instanceof Element ? target.closest<HTMLElement>(".react-flow__handle") : null;
  if (!el?.dataset.nodeid) return undefined;
  return { nodeId: el.dataset.nodeid, handleId: el.dataset.handleid ?? null, output: el.classList.contains("source") };
}

const describe = (f: Finding) => (f.path ? `${f.path}: ${f.message}` : f.message);

interface RunResult {
  execution_id: string;
  status: string;
  outputs?: unknown;
  node_results?: Record<string, NodeRunStatus>;
  error?: { message: string };
}

/**
 * What a node's expressions preview on: its first input port's value in the execution, or, when
 * it did not run there, what the node connected to that port emitted.
 */
function sampleInput(execution: ExecutionDetail, node: CanvasNode, edges: Edge[]): unknown {
  const port = node.data.type?.inputs[0]?.name ?? "input";
  const own = execution.nodes[node.id]?.inputs;
  if (own && port in own) return own[port];
  const edge = edges.find((e) => e.target === node.id && (e.targetHandle ?? "input") === port);
  return edge ? execution.nodes[edge.source]?.outputs?.[edge.sourceHandle ?? "output"] : undefined;
}

export function PipelineEditor({ id }: { id: string }) {
  const catalog = useApi<Catalog>("/api/node-catalog");
  const stored = useApi<PipelineSummary & { definition: Definition }>(id === "new" ? null : `/api/pipelines/${encodeURIComponent(id)}`);
  if (catalog.error) return <ErrorMessage error={catalog.error} />;
  if (stored.error) return <ErrorMessage error={stored.error} />;
  if (!catalog.data || (id !== "new" && !stored.data)) return <Loading what="the editor" />;
  return <Editor key={`${id}@${stored.data?.version ?? 0}`} catalog={catalog.data} pipeline={stored.data} onSaved={stored.reload} />;
}

/** The text of what is pinned to a node: what is being typed, else its saved pinned_input. */
function pinnedText(spec: DefinitionNode, typing: string | undefined): string | undefined {
  if (typing !== undefined) return typing;
  return spec.pinned_input === undefined ? undefined : JSON.stringify(spec.pinned_input, null, 2);
}

/** The JSON object `text` holds, or undefined (not JSON, or not an object). */
function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function Editor({ catalog, pipeline, onSaved }: { catalog: Catalog; pipeline: (PipelineSummary & { definition: Definition }) | undefined; onSaved(): void }) {
  const { can } = useSession();
  const [, navigate] = useLocation();
  const types = useMemo(() => new Map(catalog.nodes.map((n) => [n.id, n])), [catalog]);
  const initial = useMemo(() => toCanvas(pipeline?.definition ?? { nodes: [], connections: [] }, types), [pipeline, types]);
  const [nodes, setNodes, onNodesChange] = useNodesState<CanvasNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<Edge>(initial.edges);
  const [name, setName] = useState(pipeline?.name ?? "");
  const [selected, setSelected] = useState<string>();
  const [findings, setFindings] = useState<Finding[]>([]);
  const [runs, setRuns] = useState<Record<string, NodeRunStatus>>({});
  const [run, setRun] = useState<RunResult>();
  const [inputs, setInputs] = useState("{}");
  const [testMode, setTestMode] = useState(true);
  const [failure, setFailure] = useState<ApiFailure>();
  const [notice, setNotice] = useState<string>();
  // The canvas before the copilot's proposal was applied; saving makes the proposal the pipeline.
  const [beforeCopilot, setBeforeCopilot] = useState<{ nodes: CanvasNode[]; edges: Edge[]; name: string }>();
  // Why the last connection the user tried was refused, shown on the canvas until the next one.
  const [refused, setRefused] = useState<string>();
  const connectFrom = useRef<HandleRef>(undefined);
  const connectedNow = useRef(false);
  // The catalog takes a third of a laptop's canvas: open on an empty pipeline, a click away on one
  // with nodes, so the canvas has the room to show them at a readable zoom.
  const [catalogOpen, setCatalogOpen] = useState(initial.nodes.length === 0);
  const manage = can("pipelines:manage");
  // The executions whose data the node panes show: the last by default, or the one chosen.
  const history = useApi<{ executions: ExecutionSummary[] }>(pipeline && can("pipelines:read") ? `/api/executions?pipeline_id=${encodeURIComponent(pipeline.id)}&limit=20` : null);
  const [chosenExecution, setChosenExecution] = useState<string>();
  // Test input pinned to nodes for "run from here" is the node's pinned_input, saved with the
  // definition; this holds the text being typed, by node id, while it is not (yet) a JSON object.
  const [pins, setPins] = useState<Record<string, string>>({});
  const executions = history.data?.executions ?? [];
  const shownExecution = chosenExecution ?? executions[0]?.execution_id;
  const executionDetail = useApi<ExecutionDetail>(shownExecution ? `/api/executions/${encodeURIComponent(shownExecution)}` : null);
  const flow = useRef<ReactFlowInstance<CanvasNode, Edge>>(undefined);

  const definition = useMemo(() => toDefinition(nodes, edges), [nodes, edges]);
  // Validation ignores layout: moving a node does not ask the service again.
  const logical = useMemo(() => JSON.stringify({ ...definition, nodes: definition.nodes.map(({ position: _p, pinned_input: _pin, ...n }) => n) }), [definition]);

  useEffect(() => {
    if (JSON.parse(logical).nodes.length === 0) {
      setFindings([]);
      return;
    }
    const timer = setTimeout(() => {
      api<{ errors: Finding[]; warnings: Finding[] }>("/api/copilot/validate/pipeline", { method: "POST", body: { definition: JSON.parse(logical) } })
        .then((r) => setFindings(r.errors))
        .catch((e: unknown) => e instanceof ApiFailure && setFindings([{ node_id: null, message: e.message }]));
    }, VALIDATE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [logical]);

  const shown = useMemo<CanvasNode[]>(
    () => nodes.map((n) => ({ ...n, data: { ...n.data, errors: findings.filter((f) => f.node_id === n.id).map(describe), run: runs[n.id] } })),
    [nodes, findings, runs],
  );

  const portType = useCallback(
    (nodeId: string, port: string | null | undefined, side: "inputs" | "outputs") => {
      const node = nodes.find((n) => n.id === nodeId);
      return node?.data.type?.[side].find((p) => p.name === port)?.type;
    },
    [nodes],
  );

  const isValidConnection = useCallback(
    (c: Connection | Edge) => {
      if (c.source === c.target) return false;
      const from = portType(c.source, c.sourceHandle, "outputs");
      const to = portType(c.target, c.targetHandle, "inputs");
      return from !== undefined && to !== undefined && portsCompatible(from, to);
    },
    [portType],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      connectedNow.current = true;
      setRefused(undefined);
      setEdges((es) => addEdge(c, es));
    },
    [setEdges],
  );

  const startConnect = (_: unknown, p: { nodeId: string | null; handleId: string | null; handleType: "source" | "target" | null }) => {
    connectedNow.current = false;
    connectFrom.current = p.nodeId ? { nodeId: p.nodeId, handleId: p.handleId, output: p.handleType === "source" } : undefined;
  };

  // A drag or a click-connect that ended on a handle without connecting: say why.
  const endConnect = (event: MouseEvent | TouchEvent, state?: FinalConnectionState) => {
    const start = connectFrom.current;
    connectFrom.current = undefined;
    const end = state?.toHandle ? { nodeId: state.toHandle.nodeId, handleId: state.toHandle.id ?? null, output: state.toHandle.type === "source" } : handleAt(event.target);
    if (!start || !end || connectedNow.current) return;
    if (start.output === end.output) {
      setRefused(`Connect an output (right) to an input (left): both ends are ${start.output ? "outputs" : "inputs"}.`);
      return;
    }
    const [out, inp] = start.output ? [start, end] : [end, start];
    const portEnd = (h: HandleRef, side: "inputs" | "outputs"): PortEnd => {
      const port = h.handleId ?? (side === "inputs" ? "input" : "output");
      return { node: h.nodeId, port, def: nodes.find((n) => n.id === h.nodeId)?.data.type?.[side].find((p) => p.name === port) };
    };
    const from = portEnd(out, "outputs");
    const to = portEnd(inp, "inputs");
    setRefused(connectionRefusal(from, to, (f, t) => edges.some((e) => e.source === f.node && e.sourceHandle === f.port && e.target === t.node && e.targetHandle === t.port)));
  };

  function addNode(type: CatalogNode) {
    const id = freshId(type.id, new Set(nodes.map((n) => n.id)));
    const spec: DefinitionNode = { id, type: type.id, config: {} };
    const position = { x: 40 + (nodes.length % 3) * NEW_COLUMN, y: 40 + Math.floor(nodes.length / 3) * NEW_ROW };
    setNodes((ns) => [...ns, { id, type: "pipeline", position, data: { spec, type, errors: [] } }]);
    setSelected(id);
    // React Flow queues the fit until the new node is measured, so it is in view with its ports.
    void flow.current?.fitView(FIT_VIEW);
  }

  function updateSpec(next: DefinitionNode) {
    setNodes((ns) => ns.map((n) => (n.id === next.id ? { ...n, data: { ...n.data, spec: next } } : n)));
  }

  /** Pins `text` (JSON of the input ports' values) to the node, or unpins it (undefined). */
  function pin(spec: DefinitionNode, text: string | undefined) {
    setPins(({ [spec.id]: _old, ...rest }) => (text === undefined ? rest : { ...rest, [spec.id]: text }));
    const { pinned_input: _was, ...unpinned } = spec;
    if (text === undefined) return updateSpec(unpinned);
    const value = parsedObject(text);
    if (value) updateSpec({ ...unpinned, pinned_input: value });
  }

  function removeNode(nodeId: string) {
    setNodes((ns) => ns.filter((n) => n.id !== nodeId));
    setEdges((es) => es.filter((e) => e.source !== nodeId && e.target !== nodeId));
    setSelected(undefined);
  }

  function applyProposal(p: Proposal) {
    setBeforeCopilot({ nodes, edges, name });
    const next = toCanvas(p.definition, types);
    setNodes(next.nodes);
    setEdges(next.edges);
    if (!name.trim()) setName(p.name);
    setSelected(undefined);
    setRuns({});
    setPins({});
    setNotice("The copilot's proposal is on the canvas: save to keep it, or undo.");
  }

  function undoCopilot() {
    if (!beforeCopilot) return;
    setNodes(beforeCopilot.nodes);
    setEdges(beforeCopilot.edges);
    setName(beforeCopilot.name);
    setPins({});
    setBeforeCopilot(undefined);
    setNotice("The canvas is back as it was before the copilot's proposal.");
  }

  async function act(what: () => Promise<void>) {
    setFailure(undefined);
    setNotice(undefined);
    try {
      await what();
    } catch (e) {
      if (e instanceof ApiFailure) setFailure(e);
      else throw e;
    }
  }

  const save = () =>
    act(async () => {
      const body = { name: name.trim(), description: pipeline?.description ?? "", definition };
      if (!pipeline) {
        const created = await api<{ id: string }>("/api/pipelines", { method: "POST", body });
        navigate(`/pipelines/${created.id}/edit`);
        return;
      }
      const saved = await api<{ version: number }>(`/api/pipelines/${pipeline.id}`, { method: "PUT", body });
      setNotice(`Saved as version ${saved.version}.`);
      onSaved();
    });

  const deploy = (on: boolean) =>
    act(async () => {
      if (!pipeline) return;
      const p = await api<PipelineSummary>(`/api/pipelines/${pipeline.id}/${on ? "deploy" : "undeploy"}`, { method: "POST" });
      setNotice(on ? `Version ${p.deployed_version} deployed.` : "Undeployed.");
      onSaved();
    });

  const execute = () =>
    act(async () => {
      if (!pipeline) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(inputs);
      } catch {
        throw new ApiFailure(400, "INPUTS", "The run's inputs are not JSON");
      }
      const result = await api<RunResult>("/api/execute", { method: "POST", body: { pipeline_id: pipeline.id, inputs: parsed, test_mode: testMode } });
      setRun(result);
      setRuns(result.node_results ?? {});
      setChosenExecution(result.execution_id);
      history.reload();
    });

  const selectedNode = nodes.find((n) => n.id === selected);
  const shownData = executionDetail.data?.execution_id === shownExecution ? executionDetail.data : undefined;
  const sample = selectedNode && shownData ? sampleInput(shownData, selectedNode, edges) : undefined;
  const generalErrors = findings.filter((f) => f.node_id === null || !nodes.some((n) => n.id === f.node_id));

  return (
    <div className="editor">
      <div className="editor-bar">
        <Link href={pipeline ? `/pipelines/${pipeline.id}` : "/pipelines"}>← Back</Link>
        <label className="inline">
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        {pipeline && (
          <span>
            <span className={`badge ${pipeline.status}`}>{pipeline.status}</span> version {pipeline.version}
          </span>
        )}
        <span className={`validity ${findings.length ? "invalid" : "valid"}`} role="status">
          {nodes.length === 0 ? "Add a trigger from the catalog to start." : findings.length ? `${findings.length} problem${findings.length > 1 ? "s" : ""}` : "Valid"}
        </span>
        {manage && (
          <button type="button" onClick={() => void save()} disabled={!name.trim()}>
            Save
          </button>
        )}
        {manage && beforeCopilot && (
          <button type="button" onClick={undoCopilot}>
            Undo copilot
          </button>
        )}
        {manage && pipeline && pipeline.status === "deployed" && pipeline.deployed_version !== pipeline.version && (
          <button type="button" onClick={() => void deploy(true)}>
            Deploy version {pipeline.version}
          </button>
        )}
        {manage && pipeline && (
          <button type="button" onClick={() => void deploy(pipeline.status !== "deployed")}>
            {pipeline.status === "deployed" ? "Undeploy" : "Deploy"}
          </button>
        )}
        {manage && (
          <button type="button" aria-expanded={catalogOpen} onClick={() => setCatalogOpen((o) => !o)}>
            {catalogOpen ? "Hide catalog" : "Add nodes"}
          </button>
        )}
      </div>
      {failure && <ErrorMessage error={failure} />}
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {generalErrors.length > 0 && (
        <ul className="error">
          {generalErrors.map((f) => (
            <li key={describe(f)}>{describe(f)}</li>
          ))}
        </ul>
      )}
      <div className={`editor-body${manage && catalogOpen ? "" : " catalog-closed"}`}>
        {manage && catalogOpen && <Palette nodes={catalog.nodes} categories={catalog.categories} onAdd={addNode} />}
        <section className="canvas" aria-label="Pipeline canvas">
          <ReactFlow
            nodes={shown}
            edges={edges}
            nodeTypes={NODE_TYPES}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={onConnect}
            onConnectStart={startConnect}
            onClickConnectStart={startConnect}
            onConnectEnd={endConnect}
            onClickConnectEnd={(e) => endConnect(e)}
            isValidConnection={isValidConnection}
            onNodeClick={(_, n) => setSelected(n.id)}
            onPaneClick={() => {
              setSelected(undefined);
              setRefused(undefined);
            }}
            nodesConnectable={manage}
            onInit={(instance) => {
              flow.current = instance;
            }}
            fitView
            fitViewOptions={FIT_VIEW}
            minZoom={0.1}
          >
            <Background />
            <Controls />
            {refused && (
              <Panel position="top-center">
                <p className="connection-refused" role="alert">
                  {refused}
                </p>
              </Panel>
            )}
          </ReactFlow>
        </section>
        <div className="side">
          {selectedNode && manage && (
            <ConfigPanel key={selectedNode.id} sample={sample} spec={selectedNode.data.spec} type={types.get(selectedNode.data.spec.type)} onChange={updateSpec} onRemove={() => removeNode(selectedNode.id)} />
          )}
          {selectedNode?.data.type && <NodeDocs key={selectedNode.data.type.id} type={selectedNode.data.type} />}
          {manage && <CopilotPanel current={definition} onApply={applyProposal} />}
          {pipeline && <VersionsPanel key={pipeline.version} pipelineId={pipeline.id} current={definition} canRestore={manage} onRestored={onSaved} />}
          {pipeline && can("pipelines:execute") && (
            <section className="run-panel" aria-label="Run">
              <h2>Run</h2>
              <label>
                Inputs (JSON)
                <textarea className="run-inputs" rows={4} value={inputs} onChange={(e) => setInputs(e.target.value)} spellCheck={false} />
              </label>
              <label className="checkbox">
                <input type="checkbox" checked={testMode} onChange={(e) => setTestMode(e.target.checked)} /> Test mode (the latest version; writes are reported, not made)
              </label>
              <button type="button" onClick={() => void execute()}>
                Run
              </button>
              {run && (
                <div className="run-result" data-execution-status={run.status}>
                  <p>
                    Execution <Link href={`/executions/${run.execution_id}`}><code>{run.execution_id}</code></Link>: <strong>{run.status}</strong>
                    {run.error && ` — ${run.error.message}`}
                  </p>
                  {run.outputs !== undefined && <pre>{JSON.stringify(run.outputs, null, 2)}</pre>}
                </div>
              )}
            </section>
          )}
        </div>
      </div>
      {selectedNode && pipeline && can("pipelines:read") && (
        <NodeDataPanes key={selectedNode.id} spec={selectedNode.data.spec} executions={executions} chosen={shownExecution}
          detail={executionDetail}
          onChoose={setChosenExecution}
          run={
            can("pipelines:execute")
              ? {
                  pinned: pinnedText(selectedNode.data.spec, pins[selectedNode.id]),
                  onPin: (text) => pin(selectedNode.data.spec, text),
                  onRan: (result) => {
                    setRuns((result.node_results ?? {}) as Record<string, NodeRunStatus>);
                    setChosenExecution(result.execution_id);
                    history.reload();
                  },
                }
              : undefined
          }
        />
      )}
    </div>
  );
}
