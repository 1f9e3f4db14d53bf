// One chunk of an Apple Health export.xml, stream-parsed (saxes: no DOM, no whole file): the
// top-level Records and Correlations the chunk holds completely, and how many characters of
// the chunk they span, so the next chunk starts at the first element not yet read. A chunk
// after the first starts at such an element boundary, so it is parsed inside a stand-in
// `<HealthData>` root; nothing of the parser's state has to survive between chunks (or an eviction).
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { BP_PARTS } from "./mapping";

/** A top-level element read whole; `id` is left to the importer (export.xml has no sample UUIDs). */
export interface ExportElement {
  readonly type: string;
  readonly value?: string;
  readonly unit?: string;
  readonly start: string;
  readonly end: string;
  readonly sourceName?: string;
  readonly device?: string;
  readonly objects?: readonly Omit<ExportElement, "objects">[];
}

export interface ChunkResult {
  readonly elements: ExportElement[];
  /** Top-level elements that are not samples we import, by reason. */
  readonly skipped: Record<string, number>;
  /** Characters of `text` up to the end of the last complete top-level element. */
  readonly consumed: number;
  /** The closing `</HealthData>` was read: nothing follows. */
  readonly ended: boolean;
}

export class ExportFormatError extends Error {}

const RESUME_ROOT = "<HealthData>";
const IGNORED = new Set(["ExportDate", "Me"]);

const elementOf = (attrs: Record<string, string>): Omit<ExportElement, "objects"> => ({
  type: attrs.type ?? "",
  ...(attrs.value === undefined ? {} : { value: attrs.value }),
  ...(attrs.unit ? { unit: attrs.unit } : {}),
  start: attrs.startDate ?? "",
  end: attrs.endDate ?? "",
  ...(attrs.sourceName ? { sourceName: attrs.sourceName } : {}),
  ...(attrs.device ? { device: attrs.device } : {}),
});

export function parseExportChunk(text: string, atStart: boolean): ChunkResult {
  const parser = new SaxesParser();
  const prefix = atStart ? "" : RESUME_ROOT;
  const elements: ExportElement[] = [];
  const skipped: Record<string, number> = {};
  let depth = 0;
  let consumed = 0;
  let ended = false;
  let current: { el: Omit<ExportElement, "objects">; objects?: Omit<ExportElement, "objects">[]; keep: boolean } | undefined;

  parser.on("opentag", (tag: SaxesTagPlain) => {
    depth += 1;
    if (depth === 1 && tag.name !== "HealthData") throw new ExportFormatError(`the root element is <${tag.name}>, not Apple Health's <HealthData>`);
    if (depth === 2) {
      const attrs = tag.attributes as Record<string, string>;
      if (tag.name === "Record") current = { el: elementOf(attrs), keep: !BP_PARTS[attrs.type ?? ""] };
      else if (tag.name === "Correlation") current = { el: elementOf(attrs), objects: [], keep: true };
      else {
        current = undefined;
        if (!IGNORED.has(tag.name)) skipped[`<${tag.name}> is not imported`] = (skipped[`<${tag.name}> is not imported`] ?? 0) + 1;
      }
    } else if (depth === 3 && tag.name === "Record" && current?.objects) {
      current.objects.push(elementOf(tag.attributes as Record<string, string>));
    }
  });
  parser.on("closetag", () => {
    if (depth === 2) {
      if (current?.keep) elements.push(current.objects ? { ...current.el, objects: current.objects } : current.el);
      else if (current) skipped["blood pressure is read from its correlation"] = (skipped["blood pressure is read from its correlation"] ?? 0) + 1;
      current = undefined;
      consumed = parser.position - prefix.length;
    }
    depth -= 1;
    if (depth === 0) {
      ended = true;
      consumed = Math.max(0, parser.position - prefix.length);
    }
  });
  try {
    parser.write(prefix + text);
  } catch (err) {
    if (err instanceof ExportFormatError) throw err;
    throw new ExportFormatError(`export.xml is not well-formed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { elements, skipped, consumed, ended };
}
