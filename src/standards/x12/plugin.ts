// X12 EDI, declared once: its pipeline nodes (category claims) and its inbound adapter.
import type { Plugin } from "../plugin";
import { x12InboundAdapter } from "./inbound";
import { X12_NODES } from "./nodes/index";

export const X12_PLUGIN = { name: "x12", nodes: X12_NODES, inbound: { adapter: x12InboundAdapter } } as const satisfies Plugin;
