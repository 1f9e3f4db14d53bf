// IHE PDQm, declared once: the patient-match node, $match (ITI-119), the Patient search
// parameters and refinements of ITI-78, the supplier actor and both transactions' AuditEvents.
import type { Plugin } from "../../plugin";
import { PDQM_ACTORS } from "./actors";
import { pdqmAudit } from "./audit";
import { IHE_NODES } from "./nodes";
import { PDQM_OPERATIONS } from "./operations";
import { PDQM_SEARCH_PARAMETERS } from "./search-parameters";
import { PDQM_SEARCH_REFINEMENTS } from "./search-refinements";

export const PDQM_PLUGIN = {
  name: "ihe-pdqm",
  nodes: IHE_NODES,
  fhir: {
    operations: PDQM_OPERATIONS,
    searchParameters: PDQM_SEARCH_PARAMETERS,
    searchRefinements: PDQM_SEARCH_REFINEMENTS,
    guideActors: PDQM_ACTORS,
    guideAudits: [pdqmAudit],
  },
} as const satisfies Plugin;
