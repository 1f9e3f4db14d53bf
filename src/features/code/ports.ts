// What tenant code's `ctx` needs of standards, as a port the composition root fills (features do
// not import standards): the service's own HL7 v2 and X12 codecs, by their path under ctx
// ("hl7.parse" is `ctx.hl7.parse`). Each helper is synchronous and pure; arguments and answer are
// plain JSON, and a codec's failure is thrown as an error with a string `code` (HL7_NO_MSH,
// X12_...), which the code sees as `err.code` and which names the node's error if it is not caught.

export interface CodeHelper {
  call(args: unknown[]): unknown;
  /** JavaScript source of `(answer, call) => value`, run in the sandbox on each answer (methods over the JSON view). */
  decorate?: string;
}

export type CodeHelpers = Readonly<Record<string, CodeHelper>>;
