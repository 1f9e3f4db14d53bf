// Narrative.div: XHTML inside FHIR XML, a string in FHIR JSON (R4 json.html#xhtml: the div element
// serialised with its XHTML namespace declaration).
import { XHTML_NS } from "./structure";
import { type XmlElement, escapeAttribute, escapeText, isMarkupAttribute, parseXml } from "./xml-tree";

/** The XHTML element as the string FHIR JSON carries: the root declares the XHTML namespace, no prefixes. */
export function xhtmlString(element: XmlElement, root = true): string {
  let out = `<${element.local}${root ? ` xmlns="${XHTML_NS}"` : ""}`;
  for (const a of element.attributes) if (!isMarkupAttribute(a)) out += ` ${a.prefix === "xml" ? a.name : a.local}="${escapeAttribute(a.value)}"`;
  if (element.children.length === 0) return `${out}/>`;
  out += ">";
  for (const c of element.children) out += typeof c === "string" ? escapeText(c) : xhtmlString(c, false);
  return `${out}</${element.local}>`;
}

/**
 * The JSON div string as XML. It is parsed and written again rather than pasted, so the result is
 * well-formed and in the XHTML namespace whatever the string declared; a div that is not XHTML
 * (the JSON validator only checks it is a string) goes out as the text of an empty-namespace-safe div.
 */
export function xhtmlXml(div: string): string {
  try {
    const element = parseXml(div);
    if (element.local === "div" && (element.uri === XHTML_NS || element.uri === "")) return xhtmlString(element);
  } catch {
    // fall through: not well-formed
  }
  return `<div xmlns="${XHTML_NS}">${escapeText(div)}</div>`;
}
