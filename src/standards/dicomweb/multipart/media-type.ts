// Content-Type parsing for multipart/related (RFC 2045 parameters, RFC 2046 boundaries,
// RFC 2387 `type`): quoted values with backslash escapes, case-insensitive names.
import { multipartInvalid } from "../errors";

export interface MediaType {
  /** Lower-cased `type/subtype`. */
  essence: string;
  /** Parameters by lower-cased name, values unquoted. */
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Parses a Content-Type value; throws MULTIPART_INVALID when it is not `type/subtype *(; param)`. */
export function parseMediaType(value: string): MediaType {
  const semi = value.indexOf(";");
  const essence = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  const [type, subtype, extra] = essence.split("/");
  if (!type || !subtype || extra !== undefined || !TOKEN.test(type) || !TOKEN.test(subtype)) {
    throw multipartInvalid(`"${value}" is not a media type`);
  }
  const params: Record<string, string> = Object.create(null);
  let i = semi < 0 ? value.length : semi + 1;
  while (i < value.length) {
    while (value[i] === " " || value[i] === "\t" || value[i] === ";") i++;
    if (i >= value.length) break;
    const eq = value.indexOf("=", i);
    if (eq < 0) throw multipartInvalid(`Parameter without a value in "${value}"`);
    const name = value.slice(i, eq).trim().toLowerCase();
    if (!TOKEN.test(name)) throw multipartInvalid(`Bad parameter name "${name}" in "${value}"`);
    i = eq + 1;
    let v = "";
    if (value[i] === '"') {
      i++;
      for (; i < value.length && value[i] !== '"'; i++) v += value[i] === "\\" ? (value[++i] ?? "") : value[i];
      if (value[i] !== '"') throw multipartInvalid(`Unterminated quoted value in "${value}"`);
      i++;
    } else {
      const end = value.indexOf(";", i);
      v = value.slice(i, end < 0 ? value.length : end).trim();
      i = end < 0 ? value.length : end;
    }
    params[name] = v;
  }
  return { essence, params };
}

/** A parameter value, quoted when it is not a token (e.g. `type="application/dicom"`). */
export const formatParam = (name: string, value: string): string =>
  TOKEN.test(value) ? `${name}=${value}` : `${name}="${value.replace(/["\\]/g, "\\$&")}"`;

// RFC 2046: 1 to 70 characters from this set, not ending in a space.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

export interface MultipartType {
  boundary: string;
  /** RFC 2387 `type`: the media type of the root part (for DICOMweb, of every part). */
  type?: string;
}

/** The boundary and `type` of a multipart Content-Type; MULTIPART_INVALID otherwise. */
export function multipartTypeOf(contentType: string | null | undefined): MultipartType {
  if (!contentType) throw multipartInvalid("No Content-Type: a multipart body needs one with a boundary");
  const { essence, params } = parseMediaType(contentType);
  if (!essence.startsWith("multipart/")) throw multipartInvalid(`Content-Type ${essence} is not multipart`);
  const boundary = params.boundary;
  if (boundary === undefined || !BOUNDARY.test(boundary)) {
    throw multipartInvalid(`Content-Type "${contentType}" has no valid boundary (1-70 characters of RFC 2046's set)`);
  }
  return params.type === undefined ? { boundary } : { boundary, type: params.type.toLowerCase() };
}

export const isValidBoundary = (boundary: string): boolean => BOUNDARY.test(boundary);
