// What an org's FHIR endpoint publishes about its authorization server: the SMART configuration
// (App Launch 2.x, `/.well-known/smart-configuration`), OpenID Connect discovery for its id_tokens,
// and the style a launched app may match. Every capability listed is one the code implements.
import { ASSERTION_ALGS } from "./client-keys";
import { PATHS } from "./paths";
import { SUPPORTED_SCOPE_EXAMPLES } from "./scopes";
import { TOKEN_ALG } from "./signing-keys";

export const SMART_CAPABILITIES = [
  "launch-ehr",
  "launch-standalone",
  "client-public",
  "client-confidential-symmetric",
  "client-confidential-asymmetric",
  "context-ehr-patient",
  "context-ehr-encounter",
  "context-standalone-patient",
  "permission-offline",
  "permission-online",
  "permission-patient",
  "permission-user",
  "permission-v1",
  "permission-v2",
  "sso-openid-connect",
] as const;

export const GRANT_TYPES_SUPPORTED = ["authorization_code", "refresh_token", "client_credentials"];
export const AUTH_METHODS_SUPPORTED = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"];

/** The SMART configuration of the FHIR base `fhirBase`. */
export function smartConfiguration(fhirBase: string) {
  return {
    issuer: fhirBase,
    jwks_uri: `${fhirBase}${PATHS.jwks}`,
    authorization_endpoint: `${fhirBase}${PATHS.authorize}`,
    token_endpoint: `${fhirBase}${PATHS.token}`,
    introspection_endpoint: `${fhirBase}${PATHS.introspect}`,
    revocation_endpoint: `${fhirBase}${PATHS.revoke}`,
    grant_types_supported: GRANT_TYPES_SUPPORTED,
    token_endpoint_auth_methods_supported: AUTH_METHODS_SUPPORTED,
    token_endpoint_auth_signing_alg_values_supported: [...ASSERTION_ALGS],
    scopes_supported: SUPPORTED_SCOPE_EXAMPLES,
    response_types_supported: ["code"],
    code_challenge_methods_supported: ["S256"],
    capabilities: [...SMART_CAPABILITIES],
    // Not a SMART field: the other credential this server takes.
    authentication: {
      type: "bearer",
      description:
        "Send `Authorization: Bearer <access token>` (from token_endpoint), or `Authorization: Bearer <API key>` with `X-Organization-ID: <organization id>`; an administrator registers clients (POST /api/v1/client-applications) and creates API keys (POST /api/api-keys).",
    },
  };
}

/** OpenID Connect discovery: the id_token's issuer is the FHIR base, signed with the org's key. */
export function openidConfiguration(fhirBase: string) {
  return {
    issuer: fhirBase,
    authorization_endpoint: `${fhirBase}${PATHS.authorize}`,
    token_endpoint: `${fhirBase}${PATHS.token}`,
    jwks_uri: `${fhirBase}${PATHS.jwks}`,
    response_types_supported: ["code"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [TOKEN_ALG],
    scopes_supported: ["openid", "fhirUser"],
    claims_supported: ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "fhirUser"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: AUTH_METHODS_SUPPORTED,
  };
}

/** smart_style_url's document: the console's colors, for apps that want to look at home. */
export const SMART_STYLE = {
  color_background: "#ffffff",
  color_error: "#a40e26",
  color_highlight: "#1f6feb",
  color_modal_backdrop: "",
  color_success: "#1a7f37",
  color_text: "#1b1f24",
  dim_border_radius: "6px",
  dim_font_size: "16px",
  dim_spacing_size: "16px",
  font_family_body: "system-ui, sans-serif",
  font_family_heading: "system-ui, sans-serif",
};
