// The identity API's shapes (validation and OpenAPI) and how a user row is presented: never its
// password hash or invitation hash.
import { z } from "@hono/zod-openapi";
import { ROLES } from "../../platform/principal";
import { MIN_PASSWORD_LENGTH } from "./password";
import { SIGN_IN_METHODS, USER_STATUSES, type UserRow } from "./tables";

const FHIR_USER = /^(Practitioner|PractitionerRole|Patient|RelatedPerson|Person)\/[A-Za-z0-9.-]{1,64}$/;
const fhirUser = z.string().regex(FHIR_USER, "Expected a FHIR reference such as Practitioner/123").openapi({ description: "The FHIR resource the user is (SMART fhirUser), named by AuditEvents of their actions", example: "Practitioner/123" });

export const UserSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    fhir_user: z.string().nullable(),
    status: z.enum(USER_STATUSES),
    locked_until: z.string().nullable().openapi({ description: "Set while sign-in is locked after repeated failures" }),
    last_sign_in_at: z.string().nullable(),
    last_sign_in_method: z.enum(SIGN_IN_METHODS).nullable().openapi({ description: "How the last sign-in was made: `password`, or `sso` (the organization's OpenID Connect identity provider)" }),
    identity_provider: z.string().nullable().openapi({ description: "The OpenID Connect issuer the user is bound to since their first single sign-on (null: none yet)" }),
    external_subject: z.string().nullable().openapi({ description: "The issuer's `sub` for this user: only that subject signs in as them" }),
    created_at: z.string(),
    created_by: z.string().nullable(),
    access_policy_id: z.string().nullable().openapi({ description: "The access policy it acts under (PUT /api/v1/access-policies/{id}/assignments/...); null: none" }),
    totp_enabled: z.boolean().openapi({ description: "Password sign-in asks this user for a TOTP code as well (set up by the user; an administrator can reset it)" }),
  })
  .openapi("User");

export const InviteUserBody = z
  .object({
    email: z.string().trim().toLowerCase().email().max(254),
    name: z.string().trim().min(1).max(200),
    role: z.enum(ROLES),
    fhir_user: fhirUser.optional(),
  })
  .strict()
  .openapi("InviteUser");

export const InvitationSchema = UserSchema.extend({
  invitation: z.object({
    token: z.string().openapi({ description: "The one-time invitation token: shown only in this response, stored only as its SHA-256" }),
    expires_at: z.string(),
  }),
}).openapi("UserInvitation");

export const UpdateUserBody = z
  .object({
    role: z.enum(ROLES).optional(),
    name: z.string().trim().min(1).max(200).optional(),
    fhir_user: fhirUser.nullable().optional(),
    status: z.enum(["active", "disabled"]).optional().openapi({ description: "disabled: the user's sessions stop at once and sign-in is refused" }),
    unlock: z.literal(true).optional().openapi({ description: "Clears the failed sign-ins and the lockout they caused" }),
    identity_provider: z.null().optional().openapi({ description: "null: forget the user's binding to an IdP subject, so that their next single sign-on binds again (after a change of identity provider)" }),
  })
  .strict()
  .openapi("UpdateUser");

export const AcceptInvitationBody = z
  .object({
    token: z.string().trim().min(1).max(200),
    password: z.string().min(MIN_PASSWORD_LENGTH, `The password needs at least ${MIN_PASSWORD_LENGTH} characters`).max(1024),
    name: z.string().trim().min(1).max(200).optional().openapi({ description: "The user's name as they want it shown, when not the one they were invited with" }),
  })
  .strict()
  .openapi("AcceptInvitation");

export const PasswordSignInBody = z
  .object({
    organization_id: z.string().trim().min(1).max(200),
    email: z.string().trim().min(1).max(254),
    password: z.string().min(1).max(1024),
  })
  .strict()
  .openapi("PasswordSignIn");

export const SecondFactorRequiredSchema = z
  .object({
    second_factor: z.literal("totp"),
    challenge: z.string().openapi({ description: "Present it to POST /api/v1/auth/sign-in/totp with the code; single use" }),
    expires_at: z.string(),
  })
  .openapi("SecondFactorRequired");

const TotpCode = z.string().trim().regex(/^\d{6}$/, "Expected the six digits the authenticator app shows");
const RecoveryCode = z.string().trim().min(10).max(20).openapi({ description: "One of the recovery codes (`xxxxx-xxxxx`), each good once" });

/** A current code or a recovery code, exactly one. */
const proofFields = { code: TotpCode.optional(), recovery_code: RecoveryCode.optional() };
const oneProof: [(b: { code?: string | undefined; recovery_code?: string | undefined }) => boolean, { message: string; path: string[] }] = [
  (b) => (b.code === undefined) !== (b.recovery_code === undefined),
  { message: "Give either code or recovery_code", path: ["code"] },
];

export const FactorProofBody = z
  .object(proofFields)
  .strict()
  .refine(...oneProof)
  .openapi("TotpProof");

export const SecondFactorSignInBody = z
  .object({ organization_id: z.string().trim().min(1).max(200), challenge: z.string().trim().min(1).max(200), ...proofFields })
  .strict()
  .refine(...oneProof)
  .openapi("SecondFactorSignIn");

export const ConfirmTotpBody = z.object({ code: TotpCode }).strict().openapi("ConfirmTotp");

export const TotpStatusSchema = z
  .object({
    enabled: z.boolean(),
    enabled_at: z.string().nullable(),
    recovery_codes_left: z.number().int(),
    pending: z.boolean().openapi({ description: "A set-up was started and not confirmed yet" }),
  })
  .openapi("TotpStatus");

export const TotpEnrollmentSchema = z
  .object({
    secret: z.string().openapi({ description: "The Base32 secret, for typing into the app; shown only here" }),
    otpauth_uri: z.string().openapi({ description: "The same as an otpauth://totp/ URI (SHA-1, 6 digits, 30 s), as apps scan it from a QR code" }),
  })
  .openapi("TotpEnrollment");

export const RecoveryCodesSchema = z
  .object({ recovery_codes: z.array(z.string()).openapi({ description: "Ten codes, each good once in place of a TOTP code; shown only here" }) })
  .openapi("TotpRecoveryCodes");

export const UserIdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

export type UserView = z.infer<typeof UserSchema>;

export function presentUser(row: UserRow): UserView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    fhir_user: row.fhirUser,
    status: row.status,
    locked_until: row.lockedUntil,
    last_sign_in_at: row.lastSignInAt,
    last_sign_in_method: row.lastSignInMethod,
    identity_provider: row.identityProvider,
    external_subject: row.externalSubject,
    created_at: row.createdAt,
    created_by: row.createdBy,
    access_policy_id: row.accessPolicyId,
    totp_enabled: row.totpSecretEnc !== null,
  };
}
