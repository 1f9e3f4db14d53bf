// Node results as plain JSON. Run state is checkpointed to Durable Object storage and
// returned over RPC, which structured-clone it; JSONata results carry non-cloneable
// internals (sequence flags, functions), and a node could return anything. Normalising
// at the engine boundary means every node's outputs survive both.
import { NodeFailure } from "./node-failure";

/** `value` as JSON.stringify sees it, rebuilt from plain objects and arrays; undefined stays undefined. */
export function plainJson<T>(value: T, what: string): T {
  if (value === undefined) return value;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new NodeFailure("OUTPUT_NOT_JSON", `The ${what} cannot be represented as JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  return (text === undefined ? undefined : JSON.parse(text)) as T;
}
