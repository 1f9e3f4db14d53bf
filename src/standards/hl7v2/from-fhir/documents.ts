// DocumentReference (+ the Binary its attachment points at) → TXA and the document body
// as OBX ED (base64) or RP (a URL): the converter's TXA and OBX[DocumentReference] maps
// (convert/documents.ts) backwards.

import type { Resource } from "../../../platform/fhir-resource";
import { Hl7EncodingError } from "../errors";
import type { Hl7Segment } from "../message";
import { V3 } from "../convert/vocab";
import type { EncodeContext } from "./context";
import { codeOf, cwe, dtm, ei, xcn } from "./datatypes";
import { type Json, list, obj, text } from "./input";
import { attachmentValue, mimeParts } from "./clinical";
import { realIdentifiers } from "./people";
import { DOCUMENT_AVAILABILITY, DOCUMENT_COMPLETION_CODE, PRESENTATION } from "./vocab";
import { repeat } from "./writer";

function where(doc: Resource): string {
  return `DocumentReference${doc.id ? `/${doc.id}` : ""}`;
}

/** The attachment with its data: inline, or from the Binary its url names in the input. */
function body(ctx: EncodeContext, doc: Resource): Json {
  const attachment = obj(obj(list(doc.content)[0])?.attachment);
  if (list(doc.content).length > 1) ctx.warn(`${where(doc)} has ${list(doc.content).length} contents: MDM carries the first`);
  if (!attachment) throw new Hl7EncodingError("MISSING_VALUE", `${where(doc)}.content.attachment is required: MDM^T02 carries the document in OBX-5`, "DocumentReference.content.attachment");
  if (text(attachment.data)) return attachment;
  const binary = ctx.input.use(ctx.input.resolve(attachment.url, "Binary"));
  if (binary) {
    if (!text(binary.data)) throw new Hl7EncodingError("MISSING_VALUE", `the Binary of ${where(doc)} has no data: MDM^T02 carries the document in OBX-5`, "Binary.data");
    return { ...attachment, data: binary.data, contentType: binary.contentType ?? attachment.contentType };
  }
  if (text(attachment.url) && /^[a-z][a-z0-9+.-]*:\S+$/i.test(text(attachment.url)!) && !text(attachment.url)!.startsWith("urn:")) return attachment;
  throw new Hl7EncodingError(
    "MISSING_VALUE",
    `${where(doc)}.content.attachment needs data, the url of a Binary in the input, or an absolute url: MDM^T02 carries the document in OBX-5`,
    "DocumentReference.content.attachment",
  );
}

/** TXA and, with the content (T02), the OBX that carries the document; T01 notifies without it. */
export function documentSegments(ctx: EncodeContext, doc: Resource, withContent: boolean): Hl7Segment[] {
  ctx.input.use(doc);
  if (!obj(doc.type)) throw new Hl7EncodingError("MISSING_VALUE", `${where(doc)}.type is required: TXA-2 (document type) cannot be empty`, "DocumentReference.type");
  const attachment = withContent ? body(ctx, doc) : (obj(obj(list(doc.content)[0])?.attachment) ?? {});
  if (!withContent && (attachment.data || attachment.url)) ctx.warn(`${where(doc)} has content: MDM^T01 notifies without it, MDM^T02 carries it`);
  const ids = realIdentifiers(ctx, doc.identifier);
  const fileName = ids.find((i) => ctx.systems.isKind("document-file", text(i.system)));
  const unique = obj(doc.masterIdentifier) ?? ids.find((i) => i !== fileName);
  if (!unique) ctx.warn(`${where(doc)} has no identifier: TXA-12 (unique document number) is left empty`);
  const parent = obj(obj(list(doc.relatesTo)[0])?.target);
  const parentId = obj(parent?.identifier) ?? obj(ctx.input.resolve(parent, "DocumentReference")?.masterIdentifier);
  const docStatus = text(doc.docStatus);
  const completion = docStatus ? DOCUMENT_COMPLETION_CODE[docStatus] : undefined;
  if (!completion) ctx.warn(`${where(doc)} has no docStatus the HL7 table knows: TXA-17 (document completion status) is left empty`);
  const [major, minor] = mimeParts(attachment.contentType);
  const confidentiality = list(doc.securityLabel).map((l) => codeOf(l, V3("Confidentiality"))).find(Boolean);
  const status = text(doc.status);
  const txa = ctx.segment("TXA", {
    1: 1,
    2: cwe(ctx, doc.type),
    3: PRESENTATION[`${major}/${minor}`] ?? (major === "text" ? "TX" : "AP"),
    4: dtm(ctx, attachment.creation, "DocumentReference.content.attachment.creation"),
    6: dtm(ctx, doc.date, "DocumentReference.date"),
    9: repeat(list(doc.author).map((a) => xcn(ctx, a))),
    10: xcn(ctx, doc.authenticator),
    12: ei(ctx, unique),
    13: ei(ctx, parentId),
    16: text(fileName?.value),
    17: completion,
    18: confidentiality,
    19: status ? DOCUMENT_AVAILABILITY[status] : undefined,
    25: ctx.atLeast("2.6") ? text(doc.description) : undefined,
  });
  if (!withContent) return [txa];
  const value = attachmentValue(ctx, attachment, `${where(doc)}.content.attachment`);
  const obx = ctx.segment("OBX", {
    1: 1,
    2: value.type,
    3: cwe(ctx, doc.type),
    5: value.value,
    11: docStatus === "preliminary" ? "P" : "F",
  });
  return [txa, obx];
}
