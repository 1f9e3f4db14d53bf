// A small element tree from saxes (strict, namespace-aware XML 1.0): enough for the FHIR XML
// format, which has no mixed content outside XHTML narrative. DOCTYPEs are refused, so no entity
// can be declared (no XXE, no entity expansion bombs); comments and processing instructions are dropped.
import { SaxesParser, type SaxesTagNS } from "saxes";
import { MAX_BODY_DEPTH } from "../../../platform/http/body-depth";

export interface XmlAttribute {
  name: string;
  prefix: string;
  local: string;
  uri: string;
  value: string;
}

export interface XmlElement {
  name: string;
  local: string;
  uri: string;
  attributes: XmlAttribute[];
  children: (XmlElement | string)[];
}

export class XmlSyntaxError extends Error {}

/** The document element of `text`; throws XmlSyntaxError when it is not well-formed namespaced XML. */
export function parseXml(text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let failure: string | undefined;
  parser.on("error", (e) => {
    failure ??= e.message;
    throw new XmlSyntaxError(e.message);
  });
  parser.on("doctype", () => {
    throw new XmlSyntaxError("A DOCTYPE is not allowed in FHIR XML");
  });
  parser.on("opentag", (tag: SaxesTagNS) => {
    // Bounded as JSON bodies are (every element becomes at least one object), before the recursive conversion sees it.
    if (stack.length >= MAX_BODY_DEPTH) throw new XmlSyntaxError(`Elements nest deeper than ${MAX_BODY_DEPTH} levels, the limit of this service`);
    const element: XmlElement = {
      name: tag.name,
      local: tag.local,
      uri: tag.uri,
      attributes: Object.values(tag.attributes).map((a) => ({ name: a.name, prefix: a.prefix, local: a.local, uri: a.uri, value: a.value })),
      children: [],
    };
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  const addText = (t: string) => {
    const parent = stack.at(-1);
    if (parent) parent.children.push(t);
  };
  parser.on("text", addText);
  parser.on("cdata", addText);
  try {
    parser.write(text.replace(/^\uFEFF/, "")).close();
  } catch (e) {
    throw e instanceof XmlSyntaxError ? e : new XmlSyntaxError(failure ?? (e instanceof Error ? e.message : String(e)));
  }
  if (!root) throw new XmlSyntaxError("No document element");
  return root;
}

const ATTRIBUTE_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;" };
const TEXT_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;" };

/** An attribute value that reads back unchanged (line ends and tabs as character references, which attribute normalisation keeps). */
export const escapeAttribute = (v: string) => v.replace(/[&<>"\n\r\t]/g, (c) => ATTRIBUTE_ESCAPES[c]!);
export const escapeText = (v: string) => v.replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c]!);

const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";

/** Attributes that say how the XML is written, not what it holds: namespace declarations and xsi:schemaLocation. */
export const isMarkupAttribute = (a: XmlAttribute) => a.name === "xmlns" || a.prefix === "xmlns" || a.uri === XSI_NS;
