// IHE MHD, declared once: its nodes, the ITI-65 Provide Document Bundle checks and the Folder
// rules (on a transaction and on a single List write), ITI-67/66 query rules and parameters,
// ITI-68's 410 for superseded documents, the Document Recipient/Responder actors and the AuditEvents.
import type { Plugin } from "../../plugin";
import { MHD_ACTORS } from "./actors";
import { mhdAudit } from "./audit";
import { MHD_WRITE_CHECKS, folderTransactionCheck } from "./folder-update";
import { MHD_NODES } from "./nodes";
import { MHD_BUNDLE_CHECKS } from "./provide-bundle";
import { MHD_SEARCH_REFINEMENTS } from "./query-rules";
import { MHD_RETRIEVE_CHECKS } from "./retrieve-policy";
import { MHD_SEARCH_PARAMETERS } from "./search-parameters";

export const MHD_PLUGIN = {
  name: "ihe-mhd",
  nodes: MHD_NODES,
  fhir: {
    searchParameters: MHD_SEARCH_PARAMETERS,
    searchRefinements: MHD_SEARCH_REFINEMENTS,
    writeChecks: MHD_WRITE_CHECKS,
    bundleChecks: [...MHD_BUNDLE_CHECKS, folderTransactionCheck],
    retrieveChecks: MHD_RETRIEVE_CHECKS,
    guideActors: MHD_ACTORS,
    guideAudits: [mhdAudit],
  },
} as const satisfies Plugin;
