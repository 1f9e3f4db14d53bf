// The copilot feature's public surface for plug-ins: the ports a standard fills for it.
export type { CopilotPorts, Hl7FieldPaths } from "./ports";
