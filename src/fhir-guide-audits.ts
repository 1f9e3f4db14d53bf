// The implementation guides' AuditEvents for their transactions (part of the composition root;
// features/fhir/guide-audit.ts): IHE MHD ITI-65/66/67/68 and PDQm ITI-78.
import type { GuideAudit } from "./features/fhir/guide-audit";
import { mhdAudit } from "./standards/ihe/mhd/audit";
import { pdqmAudit } from "./standards/ihe/pdqm/audit";

export const FHIR_GUIDE_AUDITS: readonly GuideAudit[] = [mhdAudit, pdqmAudit];
