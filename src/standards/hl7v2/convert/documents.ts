// MDM: TXA → DocumentReference, the document body (OBX-5 text lines, or ED/RP data)
// → Binary, after the IG's TXA[DocumentReference] and OBX[DocumentReference] maps.
// The attachment points at the Binary by its urn:uuid fullUrl, which the FHIR store
// resolves like any other reference inside a transaction.

import type { Resource } from "../../../platform/fhir-resource";
import { toFhirInstant } from "../datetime";
import type { Hl7Segment } from "../message";
import { base64, type Subject } from "./clinical";
import { type ConversionContext, identifierCondition, type Identifier, type Ref } from "./context";
import { clean, cwe, dateTime, eiIdentifier, reps, str } from "./datatypes";
import { practitioner } from "./people";
import { CONTENT_PRESENTATION, DOCUMENT_COMPLETION, DOCUMENT_STATUS, V2, V3 } from "./vocab";

export interface DocumentInput {
  txa: Hl7Segment;
  obx: Hl7Segment[];
  event: string;
  context?: Ref[];
}

interface Body {
  contentType: string;
  data?: string;
  url?: string;
}

/** The document content carried by the OBX segments. */
function documentBody(txa: Hl7Segment, obx: Hl7Segment[]): Body | undefined {
  const lines: string[] = [];
  for (const o of obx) {
    const type = (str(o.field(2), 1) ?? "").toUpperCase();
    const first = o.field(5).rep(1);
    if (type === "ED") {
      const data = first.part(5).text.replace(/\s+/g, "");
      const enc = str(first, 4)?.toUpperCase();
      const [major, minor] = [str(first, 2), str(first, 3)];
      if (data && enc === "BASE64" && /^[A-Za-z0-9+/=]+$/.test(data)) {
        return { contentType: major && minor && /^[a-z]+$/i.test(major) ? `${major}/${minor}`.toLowerCase() : "application/octet-stream", data };
      }
      continue;
    }
    if (type === "RP") {
      const url = str(first, 1);
      if (url && /^[a-z][a-z0-9+.-]*:\S+$/i.test(url)) return { contentType: "application/octet-stream", url };
      continue;
    }
    if (type === "TX" || type === "FT" || type === "ST" || type === "") {
      for (const r of o.field(5).repetitions()) lines.push(r.text);
    }
  }
  const text = lines.join("\n");
  if (!clean(text)) return undefined;
  const presentation = str(txa.field(3), 1)?.toUpperCase();
  const contentType = presentation && CONTENT_PRESENTATION[presentation]?.startsWith("text/") ? CONTENT_PRESENTATION[presentation]! : "text/plain";
  return { contentType: `${contentType}; charset=utf-8`, data: base64(text) };
}

/** TXA (+ OBX body) → DocumentReference and Binary. Keyed by the unique document number (TXA-12), else the message. */
export function documentReference(ctx: ConversionContext, input: DocumentInput, subject: Subject): Ref {
  const { txa, event } = input;
  const unique = eiIdentifier(ctx, txa.field(12).rep(1));
  const fileName = str(txa.field(16), 1);
  const key: Identifier = unique ?? ctx.messageIdentifier("TXA");
  const availability = str(txa.field(19), 1)?.toUpperCase();
  const completion = str(txa.field(17), 1)?.toUpperCase();
  const typeCode = str(txa.field(2), 1);
  const type = cwe(ctx, txa.field(2).rep(1), V2("0270"));
  const title = type?.coding?.[0]?.display ?? type?.text ?? typeCode;
  const parent = eiIdentifier(ctx, txa.field(13).rep(1));
  const relation = event === "T05" || event === "T06" ? "appends" : event === "T09" || event === "T10" || event === "T11" ? "replaces" : undefined;
  const body = documentBody(txa, input.obx);
  let url: string | undefined = body?.url;
  if (body?.data) {
    const binary: Resource = { resourceType: "Binary", contentType: body.contentType, data: body.data };
    url = ctx.add(binary, "id", `Binary|${key.system}|${key.value}`);
  }
  const authors = reps(txa.field(9)).map((r) => practitioner(ctx, r));
  const confidentiality = str(txa.field(18), 1)?.toUpperCase();
  const date = str(txa.field(6), 1) ?? str(txa.field(4), 1);
  const resource: Resource = {
    resourceType: "DocumentReference",
    masterIdentifier: unique,
    identifier: [unique ?? key, fileName ? { system: ctx.uri("document-file", ctx.defaultSystem), value: fileName } : undefined],
    status: (availability && DOCUMENT_STATUS[availability]) || "current",
    docStatus: completion ? DOCUMENT_COMPLETION[completion] : undefined,
    type,
    subject: subject.patient,
    date: date ? toFhirInstant(date, ctx.tz) : undefined,
    author: authors,
    authenticator: practitioner(ctx, reps(txa.field(10))[0]),
    relatesTo: parent && relation ? [{ code: relation, target: { type: "DocumentReference", identifier: parent } }] : undefined,
    description: str(txa.field(25), 1),
    securityLabel: confidentiality && ["V", "R", "U", "N", "L", "M"].includes(confidentiality) ? [{ coding: [{ system: V3("Confidentiality"), code: confidentiality }] }] : undefined,
    content: [
      {
        attachment: {
          contentType: body?.contentType ?? (str(txa.field(3), 1) ? CONTENT_PRESENTATION[str(txa.field(3), 1)!.toUpperCase()] : undefined),
          url,
          title: title ?? "Document",
          creation: dateTime(ctx, str(txa.field(4), 1)),
        },
      },
    ],
    context: {
      encounter: subject.encounter ? [subject.encounter] : undefined,
      period: undefined,
      related: input.context,
    },
  };
  const ref = ctx.add(resource, "update", `DocumentReference|${key.system}|${key.value}`, identifierCondition(key));
  return { reference: ref };
}
