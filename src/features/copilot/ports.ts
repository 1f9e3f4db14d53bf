// What the copilot needs of standards, as ports the composition root fills (features do not
// import standards): HL7 v2 field paths, from the HL7 v2 parser.

export interface Hl7FieldPaths {
  /** Why `path` (e.g. "PID-5.1", "OBX[2]-5") is not a field path the parser reads; undefined when it is. */
  problem(path: string): string | undefined;
  /** Parses a sample message; throws with the parser's message when it cannot. */
  parse(message: string): { value(path: string): string | undefined; type: string };
}

export interface CopilotPorts {
  hl7: Hl7FieldPaths;
}
