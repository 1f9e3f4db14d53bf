// The HL7 v2 parser's field paths, as the copilot's port (features/copilot/ports.ts) sees them:
// whether a path is one the parser reads, and the value a path has in a sample message.
import type { Hl7FieldPaths } from "../../features/copilot";
import { parsePath } from "./message";
import { parseMessage } from "./parse";

export const hl7FieldPaths: Hl7FieldPaths = {
  problem(path) {
    try {
      parsePath(path);
      return undefined;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  },
  parse(text) {
    const message = parseMessage(text.replace(/\r?\n/g, "\r"));
    const msh9 = message.get("MSH-9.1") ?? "";
    const trigger = message.get("MSH-9.2");
    return { type: trigger ? `${msh9}^${trigger}` : msh9, value: (path) => message.get(path) };
  },
};
