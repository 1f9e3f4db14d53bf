// The management actions the audit trail records, with their AuditEvent codes. Security-relevant
// changes (keys, upload tokens, consent policy, audit retention, limits) are DICOM "Security Alert"
// events (DCM 110113) with the DICOM subtype naming what changed; console sign-in and sign-out are
// DICOM "User Authentication" (DCM 110114, subtype Login or Logout); the rest are RESTful operations of the
// management API (audit-event-type "rest", restful-interaction subtype), like the FHIR store's.
// Every event also carries the action's own code (system urn:cdis:management-action) as a
// subtype, which GET /api/audit?action= filters on.

export const DCM = "http://dicom.nema.org/resources/ontology/DCM";
export const ACTION_SYSTEM = "urn:cdis:management-action";
export const ENTITY_TYPE_SYSTEM = "urn:cdis:entity-type";

type FhirAction = "C" | "R" | "U" | "D" | "E";
interface Coding {
  system: string;
  code: string;
  display: string;
}

export interface ManagementActionDef {
  /** AuditEvent.action: C create, U update, D delete, E execute. */
  action: FhirAction;
  /** The kind of thing acted on (pipeline, api_key...), AuditEvent.entity.type. */
  entity: string;
  type: Coding;
  subtype: Coding;
}

const REST = { system: "http://terminology.hl7.org/CodeSystem/audit-event-type", code: "rest", display: "RESTful Operation" };
const SECURITY_ALERT = { system: DCM, code: "110113", display: "Security Alert" };
const AUDIT_LOG_USED = { system: DCM, code: "110101", display: "Audit Log Used" };
const interaction = (code: string) => ({ system: "http://hl7.org/fhir/restful-interaction", code, display: code });
const security = (code: string, display: string) => ({ system: DCM, code, display });

const rest = (entity: string, action: FhirAction): ManagementActionDef => ({
  action,
  entity,
  type: REST,
  subtype: interaction(action === "C" ? "create" : action === "U" ? "update" : action === "D" ? "delete" : "operation"),
});
const alert = (entity: string, action: FhirAction, subtype: Coding): ManagementActionDef => ({ action, entity, type: SECURITY_ALERT, subtype });

const USER_SECURITY = security("110137", "User Security Attributes Changed");
const SECURITY_CONFIG = security("110129", "Security Configuration");
const USER_AUTHENTICATION = security("110114", "User Authentication");
const authentication = (subtype: Coding): ManagementActionDef => ({ action: "E", entity: "console_session", type: USER_AUTHENTICATION, subtype });

export const MANAGEMENT_ACTIONS = {
  "api_key.create": alert("api_key", "C", USER_SECURITY),
  "api_key.revoke": alert("api_key", "D", USER_SECURITY),
  "client_application.create": alert("client_application", "C", USER_SECURITY),
  "client_application.update": alert("client_application", "U", USER_SECURITY),
  "client_application.delete": alert("client_application", "D", USER_SECURITY),
  "client_application.rotate_secret": alert("client_application", "U", USER_SECURITY),
  // SMART App Launch (features/smart): a user's approval or denial of an app, an EHR launch, the
  // token endpoint's grants and refusals, introspection refusals, revocations.
  "smart.authorize": alert("smart_grant", "C", USER_SECURITY),
  "smart.launch": rest("smart_launch", "C"),
  "smart.token": { action: "E", entity: "smart_token", type: USER_AUTHENTICATION, subtype: security("110122", "Login") },
  "smart.introspect": alert("smart_token", "R", SECURITY_CONFIG),
  "smart.revoke": alert("smart_grant", "D", USER_SECURITY),
  "user.invite": alert("user", "C", USER_SECURITY),
  "user.update": alert("user", "U", USER_SECURITY),
  "user.accept_invitation": alert("user", "U", USER_SECURITY),
  "user.provision": alert("user", "C", USER_SECURITY),
  "user.totp_enroll": alert("user", "U", USER_SECURITY),
  "user.totp_enable": alert("user", "U", USER_SECURITY),
  "user.totp_disable": alert("user", "U", USER_SECURITY),
  "user.totp_recovery_codes": alert("user", "U", USER_SECURITY),
  "user.totp_reset": alert("user", "U", USER_SECURITY),
  "identity_provider.create": alert("identity_provider", "C", SECURITY_CONFIG),
  "identity_provider.update": alert("identity_provider", "U", SECURITY_CONFIG),
  "identity_provider.delete": alert("identity_provider", "D", SECURITY_CONFIG),
  "organization.limits_change": alert("organization", "U", SECURITY_CONFIG),
  "organization.create": rest("organization", "C"),
  "organization.move": rest("organization", "U"),
  "console_session.sign_in": authentication(security("110122", "Login")),
  "console_session.sign_out": authentication(security("110123", "Logout")),
  "consent_policy.update": alert("consent_policy", "U", SECURITY_CONFIG),
  "access_policy.create": alert("access_policy", "C", SECURITY_CONFIG),
  "access_policy.update": alert("access_policy", "U", SECURITY_CONFIG),
  "access_policy.delete": alert("access_policy", "D", SECURITY_CONFIG),
  "access_policy.assign": alert("access_policy", "U", USER_SECURITY),
  "access_policy.unassign": alert("access_policy", "U", USER_SECURITY),
  "audit_retention.update": alert("audit_retention", "U", SECURITY_CONFIG),
  "audit.purge": { action: "D", entity: "audit_log", type: AUDIT_LOG_USED, subtype: security("110101", "Audit Log Used") },
  "pipeline.create": rest("pipeline", "C"),
  "pipeline.update": rest("pipeline", "U"),
  "pipeline.delete": rest("pipeline", "D"),
  "pipeline.deploy": rest("pipeline", "E"),
  "pipeline.undeploy": rest("pipeline", "E"),
  "execution.start": rest("execution", "E"),
  "execution.retry": rest("execution", "E"),
  "execution.step": rest("execution", "E"),
  "agent.create": rest("agent", "C"),
  "agent.update": rest("agent", "U"),
  "agent.delete": rest("agent", "D"),
  "agent.deploy": rest("agent", "E"),
  "agent.undeploy": rest("agent", "E"),
  "agent.version": rest("agent", "C"),
  "agent.restore": rest("agent", "U"),
  "agent.invoke": rest("agent", "E"),
  "agent.chat": rest("agent", "E"),
  "agent.conversation_start": rest("conversation", "C"),
  "agent.conversation_delete": rest("conversation", "D"),
  "agent.tool_assign": rest("agent", "U"),
  "agent.tool_remove": rest("agent", "U"),
  "connector.create": rest("connector", "C"),
  "connector.update": rest("connector", "U"),
  "connector.delete": rest("connector", "D"),
  "connector.test": rest("connector", "E"),
  "destination.create": rest("destination", "C"),
  "destination.update": rest("destination", "U"),
  "destination.delete": rest("destination", "D"),
  "destination.pause": rest("destination", "E"),
  "destination.resume": rest("destination", "E"),
  "destination.retry": rest("destination", "E"),
  "destination.skip": rest("destination", "E"),
  "destination.reprocess": rest("destination", "E"),
  "destination.purge": rest("destination", "D"),
  "tool.create": rest("tool", "C"),
  "tool.update": rest("tool", "U"),
  "tool.delete": rest("tool", "D"),
  "tool.invoke": rest("tool", "E"),
  "hl7_message.reprocess": rest("hl7_message", "E"),
  "export.start": rest("export", "E"),
  "export.download": rest("export", "R"),
  "export.cancel": rest("export", "D"),
  "file.upload": rest("file", "C"),
  "file.download": rest("file", "R"),
  "file.delete": rest("file", "D"),
  "device.integration_create": rest("device_integration", "C"),
  "device.integration_change": rest("device_integration", "U"),
  "device.integration_delete": rest("device_integration", "D"),
  "device.link": rest("device_link", "C"),
  "device.unlink": rest("device_link", "D"),
  "device.sync": rest("device_integration", "E"),
  "device.source_priority_update": rest("device_source_priority", "U"),
  "device.reading_moves_restore": rest("device_reading_moves", "U"),
  "copilot.suggestion_apply": rest("pipeline", "U"),
  "copilot.chat": rest("copilot_chat", "E"),
  "ihe_settings.update": rest("ihe_settings", "U"),
  "device.subscriber_update": rest("device_subscriber", "U"),
  "device.subscriber_delete": rest("device_subscriber", "D"),
  "device.upload_token_issue": alert("upload_token", "C", USER_SECURITY),
  "device.upload_token_revoke": alert("upload_token", "D", USER_SECURITY),
  "alert_rule.create": rest("alert_rule", "C"),
  "alert_rule.update": rest("alert_rule", "U"),
  "alert_rule.delete": rest("alert_rule", "D"),
  "alert.acknowledge": rest("alert", "U"),
  "alert.resolve": rest("alert", "U"),
  "bridge.create": alert("bridge", "C", USER_SECURITY),
  "bridge.rotate_credential": alert("bridge", "U", USER_SECURITY),
  "bridge.delete": alert("bridge", "D", USER_SECURITY),
  "webhook_endpoint.create": alert("webhook_endpoint", "C", USER_SECURITY),
  "webhook_endpoint.update": rest("webhook_endpoint", "U"),
  "webhook_endpoint.delete": rest("webhook_endpoint", "D"),
  "webhook_endpoint.rotate_secret": alert("webhook_endpoint", "U", USER_SECURITY),
  "webhook_endpoint.replay": rest("webhook_endpoint", "E"),
} as const satisfies Record<string, ManagementActionDef>;

export type ManagementAction = keyof typeof MANAGEMENT_ACTIONS;
