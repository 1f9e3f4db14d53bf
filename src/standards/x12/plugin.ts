// X12 EDI, declared once: its pipeline nodes (category claims), its inbound adapter and ctx.x12 of tenant code.
import type { Plugin } from "../plugin";
import { X12_CODE_HELPERS } from "./code-helpers";
import { x12InboundAdapter } from "./inbound";
import { X12_NODES } from "./nodes/index";

export const X12_PLUGIN = { name: "x12", nodes: X12_NODES, inbound: { adapter: x12InboundAdapter }, codeHelpers: X12_CODE_HELPERS } as const satisfies Plugin;
