// What every X12 node reads from its input port, and how X12 problems become node
// failures: an ApiError whose code is X12_<issue code> and whose message names the loop,
// segment and element, so the error port (on_error: route) carries where it went wrong.
import type { InboundEventPayload } from "../../../features/inbound";
import type { NodeFiles } from "../../../features/pipelines";
import { ApiError } from "../../../platform/errors";
import { describePlace, X12Error } from "../errors";
import { readX12, type X12Read } from "../read";

export const INTERCHANGE_IN = [
  { name: "interchange", type: "x12-message", description: "X12 text, the X12 trigger's event, an object with raw, x12 or interchange text, or {key} of a file in the organization's files (R2)" },
];

/** Largest X12 file a node reads from the organization's files. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** The X12 text of a port value: the text itself, an inbound event, or an object carrying it. */
export function x12Text(value: unknown): string {
  if (typeof value === "string") return value;
  const v = (value ?? {}) as { payload?: Partial<InboundEventPayload>; raw?: unknown; x12?: unknown; interchange?: unknown };
  for (const candidate of [v.payload?.raw, v.raw, v.x12, v.interchange]) if (typeof candidate === "string") return candidate;
  throw new ApiError(400, "X12_INPUT_INVALID", "The interchange input must be X12 text, an X12 trigger event, or an object with a raw, x12 or interchange field");
}

/** An X12 problem as a node failure: 422, X12_<code>, the place in the message. */
export function x12Failure(e: X12Error, prefix = ""): ApiError {
  const place = describePlace(e);
  return new ApiError(422, `X12_${e.code}`, `${prefix}${e.message}${place ? ` (at ${place})` : ""}`);
}

/** Any error a codec call throws, with X12Error made a node failure and others left alone. */
export function rethrowX12(e: unknown, prefix = ""): never {
  if (e instanceof X12Error) throw x12Failure(e, prefix);
  throw e;
}

/** The X12 text of a port value, reading `{key}` (and no text) from the organization's files. */
export async function inputText(value: unknown, files: NodeFiles): Promise<string> {
  const v = value as { key?: unknown; raw?: unknown; x12?: unknown; interchange?: unknown; payload?: unknown } | undefined;
  if (typeof v?.key !== "string" || typeof value === "string" || v.raw !== undefined || v.x12 !== undefined || v.interchange !== undefined || v.payload !== undefined) return x12Text(value);
  const file = await files.get(v.key);
  if (file.bytes > MAX_FILE_BYTES) {
    await file.body.cancel();
    throw new ApiError(413, "X12_FILE_TOO_LARGE", `File ${v.key} is ${file.bytes} bytes; X12 nodes read at most ${MAX_FILE_BYTES}`);
  }
  return new Response(file.body).text();
}

/** Reads the port value; text with no readable interchange at all fails the node. */
export async function readInput(value: unknown, files: NodeFiles): Promise<X12Read> {
  const text = await inputText(value, files);
  try {
    return readX12(text);
  } catch (e) {
    rethrowX12(e);
  }
}

/** An issue as plain JSON for node outputs, with its place spelled out. */
export function issueJson(e: X12Error) {
  return { ...e.toJSON(), at: describePlace(e) };
}
