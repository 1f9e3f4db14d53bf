// How deeply a request body may nest: MAX_BODY_DEPTH objects and arrays inside each other, for
// every JSON body the service accepts (and FHIR XML, whose elements become objects). Nothing the
// service takes needs it (a FHIR resource in a Bundle in a Parameters stays well under 30), and
// much of what reads a body is recursive (JSON.stringify, validation, reference rewriting,
// structuredClone): 3,000 levels overflowed the stack and answered 500. The checks here are
// loops, never recursion, so a body of any depth cannot overflow them. body-limit.ts applies them
// to every JSON body a route accepts; parseBoundedJson to JSON read whatever its Content-Type.
import { badRequest } from "../errors";

export const MAX_BODY_DEPTH = 100;

const [QUOTE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = ['"', "\\", "{", "}", "[", "]"].map((c) => c.charCodeAt(0)) as [number, number, number, number, number, number];

export const tooDeep = (what = "The body") => badRequest(`${what} nests deeper than ${MAX_BODY_DEPTH} levels of objects and arrays, the limit of this service`);

/**
 * Whether JSON text nests objects and arrays deeper than `limit`, read as text (no parse): brackets
 * outside strings count. Text that is not JSON gives some answer; its parse fails later anyway.
 */
export function jsonTextTooDeep(text: string, limit = MAX_BODY_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      for (i = text.indexOf('"', i + 1); i > 0; i = text.indexOf('"', i + 1)) {
        let slashes = 0;
        while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
      }
      if (i < 0) return false;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** Whether a parsed value nests objects and arrays deeper than `limit` (an explicit stack, not recursion). */
export function valueTooDeep(value: unknown, limit = MAX_BODY_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [v, depth] = top;
    if (typeof v !== "object" || v === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** JSON.parse of request data, refusing (400) what nests deeper than the limit; a syntax error stays a SyntaxError. */
export function parseBoundedJson(text: string, what?: string): unknown {
  if (jsonTextTooDeep(text)) throw tooDeep(what);
  return JSON.parse(text);
}
