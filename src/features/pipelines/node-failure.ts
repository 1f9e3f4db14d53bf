// The error nodes throw on purpose. It lives beside the NodeType contract, not in the
// engine, so nodes (and plain-json) depend on the contract only and the engine on them.

/** An error a node throws on purpose, with a machine code and, optionally, plain-JSON details for its error port (e.g. a peer's OperationOutcome). */
export class NodeFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}
