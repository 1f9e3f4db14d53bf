// The implementation guides' AuditEvents for their transactions (part of the composition root;
// features/fhir/guide-audit.ts): IHE MHD ITI-65/66/67/68, PDQm ITI-78/119 and the IPS $summary operation.
import type { GuideAudit } from "../features/fhir/guide-audit";
import { mhdAudit } from "../standards/ihe/mhd/audit";
import { pdqmAudit } from "../standards/ihe/pdqm/audit";
import { ipsAudit } from "../standards/ips/audit";

export const FHIR_GUIDE_AUDITS: readonly GuideAudit[] = [mhdAudit, pdqmAudit, ipsAudit];
