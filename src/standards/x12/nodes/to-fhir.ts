// X12 to FHIR: each transaction set to a FHIR R4 transaction Bundle (837P/I → Claim,
// 835 → PaymentReconciliation + ExplanationOfBenefit, 270/271 → CoverageEligibility*,
// 276/277 → Task/ClaimResponse, 278 → Claim/ClaimResponse "preauthorization"), parties
// found in the organization's store referenced rather than created, and by default stored.
import { z } from "zod";
import type { Bundle, FhirPort } from "../../../features/fhir";
import { defineNode } from "../../../features/pipelines";
import { matchQuery, type ReferenceResolver, x12ToFhir } from "../fhir/index";
import { INTERCHANGE_IN, issueJson, readInput, rethrowX12, x12Failure } from "./input";

/**
 * Finds stored resources in the organization's store (the run's principal) by the mapping's
 * match; two matches name no one (the conditional create then refuses to guess, 412).
 */
export function storeResolver(fhir: FhirPort): ReferenceResolver {
  return {
    resolve: async (type, match) => {
      const found = await fhir.search(type, `${matchQuery(match)}&_count=2`);
      const hits = (found.entry ?? []).filter((e) => e.resource?.id && (e.search?.mode ?? "match") === "match");
      return hits.length === 1 ? `${hits[0]!.resource!.resourceType}/${hits[0]!.resource!.id}` : undefined;
    },
  };
}

export const x12ToFhirNode = defineNode({
  id: "x12.to_fhir",
  name: "X12 to FHIR",
  category: "claims",
  description:
    "Maps X12 transaction sets to FHIR R4 transaction Bundles: 837P/837I → Claim with Patient, Coverage, Organization and Practitioner; 835 → PaymentReconciliation and an ExplanationOfBenefit per claim; 270 → CoverageEligibilityRequest; 271 → CoverageEligibilityResponse; 276 → Task; 277/277CA → ClaimResponse; 278 → Claim (use preauthorization) or ClaimResponse. By default stores them; re-sending a file creates nothing twice.",
  keywords: ["x12", "edi", "fhir", "837", "835", "270", "271", "276", "277", "278", "claim", "eob", "remittance", "eligibility", "prior authorization"],
  inputs: INTERCHANGE_IN,
  outputs: [
    { name: "bundles", type: "json", description: "[{set, control, bundle, issues}] one transaction Bundle per transaction set" },
    { name: "responses", type: "json", description: "The transaction-response Bundle of each set, when stored" },
  ],
  config: z
    .object({
      store: z.boolean().default(true).describe("Execute each Bundle as a transaction in the organization's FHIR store"),
      on_issues: z
        .enum(["fail", "skip", "map"])
        .default("fail")
        .describe("A file with issues: fail the node (X12_<code> naming loop, segment and element), skip the sets with issues, or map them as far as their content allows"),
      system_base: z.string().max(200).optional().describe("Base of identifier systems the mapping makes up (default urn:x12)"),
      resolve_references: z.boolean().default(true).describe("Reference Patients, Organizations, Practitioners, Coverages and Claims already in the store (by identifier; people by member id, name and birth date) instead of creating them"),
    })
    .strict(),
  documentation: {
    summary: "An 837P in R2 or from the X12 trigger becomes a Claim with its parties; an 835 a PaymentReconciliation plus one ExplanationOfBenefit per CLP, linked to the stored Claim by its identifier.",
    example: { config: { store: true, on_issues: "fail" }, outputs: { bundles: [{ set: "837P", control: "0001", bundle: { resourceType: "Bundle", type: "transaction" }, issues: [] }] } },
  },
  run: async (ctx) => {
    const read = await readInput(ctx.inputs.interchange, ctx.services.files);
    const envelopeIssue = read.interchanges.flatMap((i) => [...i.issues, ...i.groups.flatMap((g) => g.issues)])[0];
    if (ctx.config.on_issues === "fail" && read.issues[0]) throw x12Failure(read.issues[0], `${read.issues.length} issue(s); first: `);
    if (ctx.config.on_issues === "skip" && envelopeIssue) throw x12Failure(envelopeIssue, "The envelope is wrong: ");
    const fhir = ctx.services.fhir();
    let sets: Awaited<ReturnType<typeof x12ToFhir>>;
    try {
      sets = await x12ToFhir(read, {
        ...(ctx.config.resolve_references ? { resolver: storeResolver(fhir) } : {}),
        ...(ctx.config.system_base ? { systemBase: ctx.config.system_base } : {}),
      });
    } catch (e) {
      rethrowX12(e);
    }
    const kept = ctx.config.on_issues === "skip" ? sets.filter((s) => s.issues.length === 0) : sets;
    for (const s of sets) if (!kept.includes(s)) ctx.log("warn", `Skipped ${s.set} ${s.control}: ${s.issues.length} issue(s)`);
    const bundles = kept.map((s) => ({ set: s.set, control: s.control, bundle: s.bundle, issues: s.issues.map(issueJson) }));
    const outputs: Record<string, unknown> = { bundles };
    if (ctx.config.store) {
      if (ctx.testMode) for (const s of kept) ctx.wouldWrite("fhir:transaction", s.bundle);
      else {
        const responses: Bundle[] = [];
        for (const s of kept) responses.push(await fhir.batch(s.bundle));
        outputs.responses = responses;
      }
    }
    return { outputs };
  },
});
