// Delimiters of a message and the HL7 escape sequences (v2.3–2.8, chapter 2.7):
// \F\ \S\ \T\ \R\ \E\ \P\ (truncation, v2.7+), \Xhh..\ (hex data), formatting
// commands (\.br\ \.sp\ \.in\ ...), highlighting (\H\ \N\) and character-set
// escapes (\Cxxyy\ \Mxxyyzz\ \Zxx\). Decoding is lenient: an unknown or unterminated
// sequence is kept as it was written.

export interface Delimiters {
  field: string;
  component: string;
  repetition: string;
  /** Absent only in messages that declare fewer than three encoding characters. */
  escape?: string;
  subcomponent?: string;
  /** v2.7+ truncation character (fifth encoding character), usually "#". */
  truncation?: string;
}

export const DEFAULT_DELIMITERS: Readonly<Delimiters> = Object.freeze({
  field: "|",
  component: "^",
  repetition: "~",
  escape: "\\",
  subcomponent: "&",
});

/** The MSH-2 text for a set of delimiters. */
export function encodingCharacters(d: Delimiters): string {
  let s = d.component + d.repetition;
  if (d.escape !== undefined) s += d.escape;
  else if (d.subcomponent !== undefined || d.truncation !== undefined) return s; // cannot express a gap
  if (d.subcomponent !== undefined) s += d.subcomponent;
  if (d.subcomponent !== undefined && d.truncation !== undefined) s += d.truncation;
  return s;
}

export interface DecodeOptions {
  /** Text for \.br\ and \.sp\ (default "\n"). */
  lineBreak?: string;
}

/** Decode the escape sequences of one primitive value (a leaf: subcomponent or simple field). */
export function unescapeValue(raw: string, d: Delimiters, options?: DecodeOptions): string {
  const esc = d.escape;
  if (esc === undefined || raw.indexOf(esc) < 0) return raw;
  const lineBreak = options?.lineBreak ?? "\n";
  let out = "";
  let i = 0;
  while (i < raw.length) {
    const start = raw.indexOf(esc, i);
    if (start < 0) {
      out += raw.slice(i);
      break;
    }
    out += raw.slice(i, start);
    const end = raw.indexOf(esc, start + 1);
    if (end < 0) {
      out += raw.slice(start); // unterminated: keep literally
      break;
    }
    const seq = raw.slice(start + 1, end);
    const decoded = decodeSequence(seq, d, lineBreak);
    out += decoded ?? raw.slice(start, end + 1);
    i = end + 1;
  }
  return out;
}

function decodeSequence(seq: string, d: Delimiters, lineBreak: string): string | undefined {
  switch (seq) {
    case "F":
      return d.field;
    case "S":
      return d.component;
    case "T":
      return d.subcomponent ?? "&";
    case "R":
      return d.repetition;
    case "E":
      return d.escape ?? "\\";
    case "P":
      return d.truncation ?? "#";
    case "H":
    case "N":
      return ""; // highlighting on/off: no plain-text equivalent
    case ".br":
      return lineBreak;
    case ".fi":
    case ".nf":
    case ".ce":
      return "";
  }
  if (seq.length === 0) return undefined;
  const head = seq[0];
  if (head === "X" && /^X([0-9A-Fa-f]{2})+$/.test(seq)) return decodeHex(seq.slice(1));
  if (head === "." && /^\.sp[+-]?\d*$/.test(seq)) {
    const n = Number(seq.slice(3).replace("+", "") || "1");
    return lineBreak.repeat(Math.max(1, Math.min(n, 100)));
  }
  if (head === "." && /^\.(in|ti)[+-]?\d*$/.test(seq)) return "";
  if (head === "." && /^\.sk[+-]?\d*$/.test(seq)) return " ".repeat(Math.min(Number(seq.slice(3)) || 1, 100));
  if ((head === "C" || head === "M") && /^[CM]([0-9A-Fa-f]{2})+$/.test(seq)) return ""; // character-set switch
  if (head === "Z") return undefined; // locally defined: keep as written
  return undefined;
}

function decodeHex(hex: string): string {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    let s = ""; // not UTF-8: read the bytes as ISO-8859-1
    for (const b of bytes) s += String.fromCharCode(b);
    return s;
  }
}

/** Escape a plain value so that it can be written into one leaf of a message. */
export function escapeValue(value: string, d: Delimiters): string {
  const esc = d.escape;
  if (esc === undefined) return value;
  let out = "";
  for (const ch of value) {
    if (ch === esc) out += `${esc}E${esc}`;
    else if (ch === d.field) out += `${esc}F${esc}`;
    else if (ch === d.component) out += `${esc}S${esc}`;
    else if (ch === d.subcomponent) out += `${esc}T${esc}`;
    else if (ch === d.repetition) out += `${esc}R${esc}`;
    else if (d.truncation !== undefined && ch === d.truncation) out += `${esc}P${esc}`;
    else if (ch === "\n") out += `${esc}.br${esc}`;
    else if (ch === "\r") out += `${esc}X0D${esc}`;
    else out += ch;
  }
  return out;
}
