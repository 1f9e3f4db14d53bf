// JSON Patch (RFC 6902) and FHIRPath Patch applied to a resource copy; failures are client
// errors (422 for a failed test or an invalid path), never exceptions escaping as 500s.
import { fhirpathPatchTypedValue, parseFhirPathPatchParameters, toTypedValue } from "@medplum/core";
import type { Parameters } from "@medplum/fhirtypes";
import { badRequest, unprocessable } from "../../platform/errors";
import { isPrototypeKey, ownProperty } from "../../platform/object-keys";

export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

type Container = Record<string, unknown> | unknown[];

const unescapeToken = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");

function parsePointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw unprocessable(`Invalid JSON pointer ${path}`);
  const tokens = path.slice(1).split("/").map(unescapeToken);
  const forbidden = tokens.find(isPrototypeKey);
  if (forbidden !== undefined) throw unprocessable(`JSON pointer ${path}: the token ${forbidden} is not allowed`);
  return tokens;
}

/** One step down a document: own members only, so a pointer can never reach a prototype. */
function child(cur: unknown, token: string): unknown {
  return Array.isArray(cur) && !/^\d+$/.test(token) ? undefined : ownProperty(cur, token);
}

function parentOf(doc: unknown, tokens: string[], path: string): { parent: Container; key: string } {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    cur = child(cur, t);
    if (cur === undefined) throw unprocessable(`Path ${path} does not exist`);
  }
  if (!cur || typeof cur !== "object") throw unprocessable(`Path ${path} does not exist`);
  return { parent: cur as Container, key: tokens[tokens.length - 1]! };
}

function getAt(doc: unknown, path: string): unknown {
  let cur = doc;
  for (const t of parsePointer(path)) {
    cur = child(cur, t);
    if (cur === undefined) throw unprocessable(`Path ${path} does not exist`);
  }
  return cur;
}

function arrayIndex(arr: unknown[], key: string, path: string, forAdd: boolean): number {
  if (forAdd && key === "-") return arr.length;
  const i = Number(key);
  if (!/^\d+$/.test(key) || i > arr.length || (!forAdd && i === arr.length)) throw unprocessable(`Invalid array index in ${path}`);
  return i;
}

function add(doc: unknown, path: string, value: unknown) {
  const { parent, key } = parentOf(doc, parsePointer(path), path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, path, true), 0, value);
  else parent[key] = value;
}

function remove(doc: unknown, path: string): unknown {
  const { parent, key } = parentOf(doc, parsePointer(path), path);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, path, false), 1)[0];
  if (!Object.hasOwn(parent, key)) throw unprocessable(`Path ${path} does not exist`);
  const old = parent[key];
  delete parent[key];
  return old;
}

export function applyJsonPatch<T>(doc: T, ops: unknown): T {
  if (!Array.isArray(ops)) throw badRequest("A JSON Patch body is an array of operations");
  const out = structuredClone(doc);
  for (const raw of ops as PatchOperation[]) {
    if (!raw || typeof raw.op !== "string" || typeof raw.path !== "string") throw badRequest("Each patch operation needs op and path");
    if (raw.path === "") throw unprocessable("Patching the whole document is not allowed");
    switch (raw.op) {
      case "add":
        add(out, raw.path, structuredClone(raw.value));
        break;
      case "remove":
        remove(out, raw.path);
        break;
      case "replace":
        remove(out, raw.path);
        add(out, raw.path, structuredClone(raw.value));
        break;
      case "move":
        add(out, raw.path, remove(out, raw.from ?? ""));
        break;
      case "copy":
        add(out, raw.path, structuredClone(getAt(out, raw.from ?? "")));
        break;
      case "test":
        if (JSON.stringify(getAt(out, raw.path)) !== JSON.stringify(raw.value)) throw unprocessable(`Patch test failed at ${raw.path}`);
        break;
      default:
        throw badRequest(`Unknown patch operation ${raw.op}`);
    }
  }
  return out;
}

const PROTOTYPE_NAME = /(^|[^\w$])(__proto__|prototype|constructor)([^\w$]|$)/;

/** No FHIR element is called __proto__, prototype or constructor; refuse them before any path is walked. */
function refusePrototypeNames(operations: unknown[]) {
  for (const op of operations) {
    const parts = (op as { part?: { name?: string; valueString?: unknown }[] })?.part ?? [];
    for (const part of parts) {
      if ((part?.name === "path" || part?.name === "name") && typeof part.valueString === "string" && PROTOTYPE_NAME.test(part.valueString))
        throw unprocessable(`FHIRPath Patch ${part.name} ${part.valueString} is not allowed`);
    }
  }
}

/** FHIRPath Patch (a Parameters resource of operations), through @medplum/core's implementation. */
export function applyFhirPathPatch<T extends object>(doc: T, parameters: unknown): T {
  const p = parameters as { resourceType?: string; parameter?: unknown[] };
  if (p?.resourceType !== "Parameters" || !Array.isArray(p.parameter)) throw badRequest("A FHIRPath Patch body is a Parameters resource");
  refusePrototypeNames(p.parameter);
  const out = structuredClone(doc);
  try {
    fhirpathPatchTypedValue(toTypedValue(out), parseFhirPathPatchParameters(p as Parameters));
  } catch (e) {
    throw unprocessable(`FHIRPath Patch failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  return out;
}

/** A patch body as either form names it: a JSON Patch array, or a FHIRPath Patch Parameters resource; it may not change resourceType or id. */
export function applyPatch<T extends { resourceType?: string; id?: string }>(doc: T, operations: unknown): T {
  const patched = Array.isArray(operations) ? applyJsonPatch(doc, operations) : applyFhirPathPatch(doc, operations);
  if (patched.resourceType !== doc.resourceType || patched.id !== doc.id) throw unprocessable("A patch may not change resourceType or id");
  return patched;
}
