// validate/pipeline: the service's own definition validator (the one every save runs), its
// errors by node, plus the copilot's warnings. A definition valid here is one the
// service accepts.
import { ApiError } from "../../platform/errors";
import type { OutboundPolicy } from "../../platform/outbound/policy";
import { checkDefinition, type Definition, DefinitionSchema, type NodeRegistry } from "../pipelines";
import { findingsOf, type ValidationReport } from "./findings";
import { lintDefinition } from "./lint";

export function validatePipeline(raw: unknown, registry: NodeRegistry, policy?: OutboundPolicy): ValidationReport {
  let errors: ValidationReport["errors"] = [];
  try {
    checkDefinition(raw, registry, policy);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    errors = err.details.length ? findingsOf(err.details, raw) : [{ node_id: null, message: err.message }];
  }
  // Warnings need a definition of the right shape; a malformed one has only errors.
  const parsed = DefinitionSchema.safeParse(raw);
  const warnings = parsed.success ? lintDefinition(parsed.data as Definition, registry) : [];
  return { valid: errors.length === 0, errors, warnings };
}
