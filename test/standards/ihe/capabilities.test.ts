// The CapabilityStatement declares the implementation guides' actors from their declarations
// (the plug-ins' guideActors, src/main/catalogs.ts): MHD Document Recipient and Responder, PDQm Supplier, IPS Server,
// with the supported profiles on each resource type and the transactions they serve.
import { describe, expect, it } from "vitest";
import { FHIR_EXTENSIONS } from "../../../src/main/catalogs";
import { createTenant } from "../../support/tenants";

interface Cs {
  instantiates: string[];
  rest: { documentation?: string; interaction: { code: string }[]; resource: { type: string; supportedProfile?: string[]; interaction: { code: string }[] }[] }[];
}

describe("CapabilityStatement: implementation guide actors", () => {
  it("instantiates the MHD, PDQm and IPS actor CapabilityStatements with their profiles", async () => {
    const t = await createTenant();
    const cs = (await (await t.fetch(`/fhir/r4/${t.orgId}/metadata`)).json()) as Cs;
    const mhd = "https://profiles.ihe.net/ITI/MHD/CapabilityStatement/";
    expect(cs.instantiates).toEqual(
      expect.arrayContaining([
        `${mhd}IHE.MHD.DocumentRecipient`,
        `${mhd}IHE.MHD.DocumentRecipient.Comprehensive`,
        `${mhd}IHE.MHD.DocumentRecipient.UnContained`,
        `${mhd}IHE.MHD.DocumentResponder`,
        "https://profiles.ihe.net/ITI/PDQm/CapabilityStatement/IHE.PDQm.PatientDemographicsSupplier",
        "http://hl7.org/fhir/uv/ips/CapabilityStatement/ips-server",
      ]),
    );
    expect(new Set(cs.instantiates).size).toBe(cs.instantiates.length);
    const rest = cs.rest[0]!;
    const byType = new Map(rest.resource.map((r) => [r.type, r]));
    expect(byType.get("Bundle")!.supportedProfile).toEqual(
      expect.arrayContaining(["https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.Comprehensive.ProvideBundle", "http://hl7.org/fhir/uv/ips/StructureDefinition/Bundle-uv-ips"]),
    );
    expect(byType.get("DocumentReference")!.supportedProfile).toContain("https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.Comprehensive.DocumentReference");
    expect(byType.get("List")!.supportedProfile).toContain("https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.Comprehensive.SubmissionSet");
    expect(byType.get("Patient")!.supportedProfile).toContain("https://profiles.ihe.net/ITI/PDQm/StructureDefinition/IHE.PDQm.Patient");
    // The interactions the actors need are the store's: transaction (ITI-65), search (ITI-66/67/78), read (ITI-68).
    expect(rest.interaction.map((i) => i.code)).toContain("transaction");
    for (const type of ["DocumentReference", "List", "Patient", "Binary"]) expect(byType.get(type)!.interaction.map((i) => i.code)).toEqual(expect.arrayContaining(["read", "search-type"]));
    for (const actor of FHIR_EXTENSIONS.guideActors) expect(rest.documentation).toContain(actor.name);
    expect(rest.documentation).toContain("ITI-68 Retrieve Document");
    expect(byType.get("Observation")!.supportedProfile).toBeUndefined();
  });
});
