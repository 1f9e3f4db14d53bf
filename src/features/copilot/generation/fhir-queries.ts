// generate/fhir-queries: FHIR search requests ("Type?param=value&...") for a description, each
// checked as the organization's FHIR API would take it (its store's checkSearch: the search parser and the
// value checks of building its SQL, so `birthdate=notadate` or `value-quantity=abc` is refused as
// the API refuses it). Refused requests go back to the model; parameters the parser does not know
// are sent back once and, if still there, dropped from the query with a warning. After the last
// attempt a request still refused is dropped with a warning naming why; only when none is left
// is the answer a 422. Every query answered runs on the service's own FHIR API.
import { z } from "@hono/zod-openapi";
import { ApiError, type FieldError } from "../../../platform/errors";
import type { ResolvedModel } from "../../agents";
import type { FhirService } from "../../fhir";
import { generateStructured } from "./structured";

export const GeneratedQueriesSchema = z.object({
  queries: z.array(z.string().min(1).max(4000)).min(1).max(20),
});

export interface CheckedQuery {
  query: string;
  warnings: string[];
}

/** What checks a search as the FHIR API would: the organization's store (its implementation guides' parameters too). */
export type SearchChecker = Pick<FhirService, "checkSearch">;

/** Checks `Type?query` as the FHIR API would; throws ApiError (400) for what it would refuse. */
export function checkQuery(store: SearchChecker, text: string): CheckedQuery {
  const trimmed = text.trim().replace(/^\/?(?:fhir\/r4\/[^/]+\/)?/, "");
  const [path, qs = ""] = trimmed.split("?", 2) as [string, string?];
  const type = path.replace(/\/_search$/, "");
  if (!/^[A-Z][A-Za-z]+$/.test(type)) throw new ApiError(400, "BAD_REQUEST", `${text}: expected ResourceType?param=value`);
  const req = store.checkSearch(type, qs);
  if (!req.warnings.length) return { query: `${type}${qs ? `?${qs}` : ""}`, warnings: [] };
  // Drop each parameter the parser does not take on its own, keeping the rest in order.
  const kept = [...new URLSearchParams(qs)].filter(([k, v]) => !store.checkSearch(type, new URLSearchParams([[k, v]])).warnings.length);
  const rest = new URLSearchParams(kept).toString();
  return { query: `${type}${rest ? `?${rest}` : ""}`, warnings: req.warnings.map((w) => `${type}: ${w} (dropped)`) };
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Each query checked (`index`: its place in the answer): the accepted ones, and why each refused one is. */
function checkAll(store: SearchChecker, queries: string[]): { accepted: (CheckedQuery & { index: number })[]; refused: { index: number; query: string; message: string }[] } {
  const accepted: (CheckedQuery & { index: number })[] = [];
  const refused: { index: number; query: string; message: string }[] = [];
  queries.forEach((query, index) => {
    try {
      accepted.push({ ...checkQuery(store, query), index });
    } catch (e) {
      refused.push({ index, query, message: messageOf(e) });
    }
  });
  return { accepted, refused };
}

export async function generateFhirQueries(model: ResolvedModel, store: SearchChecker, description: string, attempts?: number) {
  let firstRound = true;
  const check = (value: z.infer<typeof GeneratedQueriesSchema>, { last }: { last: boolean }): FieldError[] => {
    const { accepted, refused } = checkAll(store, value.queries);
    const errors: FieldError[] = [];
    // Unknown parameters get one chance to be repaired; after that they are dropped.
    if (firstRound) for (const c of accepted) errors.push(...c.warnings.map((w) => ({ path: `queries.${c.index}`, message: w })));
    firstRound = false;
    // A refused query is sent back while attempts remain; on the last it is dropped, unless none would be left.
    if (!last || accepted.length === 0) errors.push(...refused.map((r) => ({ path: `queries.${r.index}`, message: r.message })));
    return last && accepted.length > 0 ? [] : errors;
  };
  const result = await generateStructured(
    {
      model: model.model,
      modelId: model.info.id,
      system:
        'You write FHIR R4 search requests for a FHIR server. Answer {"queries": ["Type?param=value&...", ...]}: standard search parameters of the type only, values URL-encoded, token values as system|code, dates as YYYY, YYYY-MM, YYYY-MM-DD or a full dateTime with prefixes (ge, le...), quantities as [prefix]number|system|code, chained parameters and _include/_revinclude/_sort/_count where useful.',
      prompt: description,
      schema: GeneratedQueriesSchema,
      attempts,
      check,
    },
    "list of FHIR search requests",
  );
  const { accepted, refused } = checkAll(store, result.value.queries);
  const dropped = refused.map((r) => `${r.query}: ${r.message} (dropped: the FHIR API refuses it)`);
  return { queries: accepted.map((c) => c.query), warnings: [...accepted.flatMap((c) => c.warnings), ...dropped], attempts: result.attempts, model: model.info.id };
}
