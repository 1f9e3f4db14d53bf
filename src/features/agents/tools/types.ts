// What an agent tool is, independent of where it comes from (built in, or a
// custom tool from /api/tools) and of the AI SDK.
import type { JSONSchema7 } from "ai";
import type { z } from "zod";

export interface ToolContext {
  agentId: string;
  /** Aborted when the turn is cancelled or times out. */
  signal?: AbortSignal;
}

export interface AgentTool {
  name: string;
  description: string;
  /** Built-in tools validate their input with zod; custom tools carry JSON Schema. */
  input: { zod: z.ZodType } | { jsonSchema: JSONSchema7 };
  execute(args: unknown, ctx: ToolContext): Promise<unknown>;
}
