// The MHD actors this server plays, for the CapabilityStatement (IHE MHD 4.2: the Document
// Recipient with the Comprehensive and UnContained options, ITI-65; the Document Responder,
// ITI-66/67/68), with the profiles each accepts or serves.
import type { GuideActor } from "../../../features/fhir";
import { MHD_PROFILES } from "./provide-bundle";

const CS = "https://profiles.ihe.net/ITI/MHD/CapabilityStatement/";
const SD = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/";
const options = ["Minimal", "UnContained.Comprehensive", "Comprehensive"] as const;

export const MHD_ACTORS: readonly GuideActor[] = [
  {
    name: "IHE MHD Document Recipient (Comprehensive, UnContained options)",
    instantiates: [`${CS}IHE.MHD.DocumentRecipient`, `${CS}IHE.MHD.DocumentRecipient.Comprehensive`, `${CS}IHE.MHD.DocumentRecipient.UnContained`],
    supportedProfile: {
      Bundle: Object.values(MHD_PROFILES),
      DocumentReference: options.map((o) => `${SD}IHE.MHD.${o}.DocumentReference`),
      List: options.map((o) => `${SD}IHE.MHD.${o}.SubmissionSet`),
    },
    transactions: ["ITI-65 Provide Document Bundle"],
  },
  {
    name: "IHE MHD Document Responder",
    instantiates: [`${CS}IHE.MHD.DocumentResponder`],
    transactions: ["ITI-66 Find Document Lists", "ITI-67 Find Document References", "ITI-68 Retrieve Document"],
  },
];
