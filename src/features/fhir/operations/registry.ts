// The FHIR operations this server offers: one list, read by the FHIR routes (which URL runs
// which handler), the CapabilityStatement (which operations each type and the system list)
// and the OpenAPI document (one path per operation, level, type and method).
import type { AnyOperation, OperationLevel } from "./operation";

export interface CapabilityOperation {
  name: string;
  definition: string;
}

/** One route the operations need: a name at a level, by one method. */
export interface OperationRoute {
  name: string;
  level: OperationLevel;
  method: "GET" | "POST";
}

const appliesTo = (op: AnyOperation, type: string | undefined) => op.types === "*" || (type !== undefined && op.types.includes(type));

export class OperationRegistry {
  readonly operations: readonly AnyOperation[];

  constructor(operations: readonly AnyOperation[]) {
    // Two declarations answering the same URL would make one of them unreachable.
    operations.forEach((op, i) => {
      const clash = operations.slice(0, i).find((o) => o.name === op.name && o.levels.some((l) => op.levels.includes(l)) && overlap(o, op));
      if (clash) throw new Error(`FHIR operation $${op.name} is declared twice for the same level and type`);
    });
    this.operations = operations;
  }

  /** The operation a URL names: `$name` at `level`, on `type` below the system level. */
  find(name: string, level: OperationLevel, type?: string): AnyOperation | undefined {
    return this.operations.find((op) => op.name === name && op.levels.includes(level) && (level === "system" || appliesTo(op, type)));
  }

  /** Each (name, level, method) once, in declaration order. */
  routes(): OperationRoute[] {
    const seen = new Set<string>();
    return this.operations.flatMap((op) =>
      op.levels.flatMap((level) =>
        op.methods.flatMap((method) => {
          const key = `${op.name} ${level} ${method}`;
          if (seen.has(key)) return [];
          seen.add(key);
          return [{ name: op.name, level, method }];
        }),
      ),
    );
  }

  /** The operations a resource type's CapabilityStatement entry lists (type and instance level). */
  forType(type: string): CapabilityOperation[] {
    return unique(this.operations.filter((op) => op.levels.some((l) => l !== "system") && appliesTo(op, type)).map(capability));
  }

  /** The implementation guides' CapabilityStatements the operations make this server instantiate. */
  instantiates(): string[] {
    return [...new Set(this.operations.flatMap((op) => (op.instantiates ? [op.instantiates] : [])))];
  }

  /**
   * The operations the CapabilityStatement lists at rest level: every operation the server
   * offers, once per name (the first declaration's definition), as clients look for them there.
   */
  forSystem(): CapabilityOperation[] {
    const byName = new Map<string, CapabilityOperation>();
    for (const op of this.operations) if (!byName.has(op.name)) byName.set(op.name, { name: op.name, definition: op.definition });
    return [...byName.values()];
  }
}

function overlap(a: AnyOperation, b: AnyOperation): boolean {
  if (a.levels.includes("system") && b.levels.includes("system")) return true;
  return a.types === "*" || b.types === "*" || a.types.some((t) => b.types.includes(t));
}

const capability = (op: AnyOperation): CapabilityOperation => ({ name: op.capabilityName ?? op.name, definition: op.definition });

function unique(list: CapabilityOperation[]): CapabilityOperation[] {
  return list.filter((c, i) => list.findIndex((x) => x.name === c.name) === i);
}
