// generate/fhir-queries: FHIR search requests ("Type?param=value&...") for a description,
// each parsed by the FHIR store's own search parser. Requests the parser rejects (unknown
// type, bad values) go back to the model; parameters it does not know are sent back once
// and, if still there, dropped from the query with a warning.
import { z } from "@hono/zod-openapi";
import { ApiError, type FieldError } from "../../../platform/errors";
import type { ResolvedModel } from "../../agents/models";
import { parseSearch } from "../../fhir/search/parse";
import { generateStructured } from "./structured";

export const GeneratedQueriesSchema = z.object({
  queries: z.array(z.string().min(1).max(4000)).min(1).max(20),
});

export interface CheckedQuery {
  query: string;
  warnings: string[];
}

/** Parses `Type?query`; throws ApiError (400) for what the store would refuse. */
export function checkQuery(text: string): CheckedQuery {
  const trimmed = text.trim().replace(/^\/?(?:fhir\/r4\/[^/]+\/)?/, "");
  const [path, qs = ""] = trimmed.split("?", 2) as [string, string?];
  const type = path.replace(/\/_search$/, "");
  if (!/^[A-Z][A-Za-z]+$/.test(type)) throw new ApiError(400, "BAD_REQUEST", `${text}: expected ResourceType?param=value`);
  const req = parseSearch(type, qs);
  if (!req.warnings.length) return { query: `${type}${qs ? `?${qs}` : ""}`, warnings: [] };
  // Drop each parameter the parser does not take on its own, keeping the rest in order.
  const kept = [...new URLSearchParams(qs)].filter(([k, v]) => !parseSearch(type, new URLSearchParams([[k, v]])).warnings.length);
  const rest = new URLSearchParams(kept).toString();
  return { query: `${type}${rest ? `?${rest}` : ""}`, warnings: req.warnings.map((w) => `${type}: ${w} (dropped)`) };
}

export async function generateFhirQueries(model: ResolvedModel, description: string, attempts?: number) {
  let firstRound = true;
  const check = (value: z.infer<typeof GeneratedQueriesSchema>): FieldError[] => {
    const errors: FieldError[] = [];
    value.queries.forEach((q, i) => {
      try {
        const checked = checkQuery(q);
        // Unknown parameters get one chance to be repaired; after that they are dropped.
        if (firstRound) for (const w of checked.warnings) errors.push({ path: `queries.${i}`, message: w });
      } catch (e) {
        errors.push({ path: `queries.${i}`, message: e instanceof Error ? e.message : String(e) });
      }
    });
    firstRound = false;
    return errors;
  };
  const result = await generateStructured(
    {
      model: model.model,
      modelId: model.info.id,
      system:
        'You write FHIR R4 search requests for a FHIR server. Answer {"queries": ["Type?param=value&...", ...]}: standard search parameters of the type only, values URL-encoded, token values as system|code, dates with prefixes (ge, le...), chained parameters and _include/_revinclude/_sort/_count where useful.',
      prompt: description,
      schema: GeneratedQueriesSchema,
      attempts,
      check,
    },
    "list of FHIR search requests",
  );
  const checked = result.value.queries.map(checkQuery);
  return { queries: checked.map((c) => c.query), warnings: checked.flatMap((c) => c.warnings), attempts: result.attempts, model: model.info.id };
}
