// Everything that plugs into the service, one line each (the contract: src/standards/plugin.ts).
// The features' own contributions come first, then the standards and implementation guides, each
// declared once in its own folder, then the device platforms. The order is the catalogs' order
// (the node catalog lists families as they come here). Every registry is built from this list
// (catalogs.ts); nothing below src/main/ names a plug-in.
import { AI_NODES } from "../features/agents/nodes/index";
import { ALERT_NODES } from "../features/alerts/nodes";
import { CORE_CONNECTOR_TYPES } from "../features/connectors/core-types";
import { type CodeHelpers, codeNodes } from "../features/code/index";
import { CONSENT_NODES } from "../features/consent/nodes/index";
import { DEVICE_NODES } from "../features/devices/nodes";
import { exportOperations } from "../features/export/operations";
import { coreOperations } from "../features/fhir/operations/core";
import { CORE_NODE_FAMILIES } from "../features/pipelines/nodes/index";
import { subscriptionBundleCheck, subscriptionOperations, subscriptionWriteCheck, subscriptionsActor } from "../features/subscriptions";
import { DICOMWEB_PLUGIN } from "../standards/dicomweb/plugin";
import { HL7V2_PLUGIN } from "../standards/hl7v2/plugin";
import { MHD_PLUGIN } from "../standards/ihe/mhd/plugin";
import { PDQM_PLUGIN } from "../standards/ihe/pdqm/plugin";
import { IPS_PLUGIN } from "../standards/ips/plugin";
import type { Plugin } from "../standards/plugin";
import { X12_PLUGIN } from "../standards/x12/plugin";
import { garmin } from "../features/devices/platforms/garmin/adapter";
import { googleHealth } from "../features/devices/platforms/google-health/adapter";
import { oura } from "../features/devices/platforms/oura/adapter";
import { polar } from "../features/devices/platforms/polar/adapter";
import { suunto } from "../features/devices/platforms/suunto/adapter";
import { whoop } from "../features/devices/platforms/whoop/adapter";

export const PLUGINS: readonly Plugin[] = [
  { name: "fhir", fhir: { operations: coreOperations } },
  { name: "bulk-export", fhir: { operations: exportOperations } },
  { name: "subscriptions", fhir: { operations: subscriptionOperations, writeChecks: [subscriptionWriteCheck], bundleChecks: [subscriptionBundleCheck], guideActors: [subscriptionsActor] } },
  ...CORE_NODE_FAMILIES.map((nodes, i) => ({ name: `pipelines-core-${i}`, nodes })),
  { name: "connectors-core", connectorTypes: CORE_CONNECTOR_TYPES },
  // ctx.hl7, ctx.x12...: every plug-in's code helpers, read when a code node first runs.
  { name: "code", nodes: codeNodes(() => codeHelpers) },
  { name: "agents", nodes: AI_NODES },
  HL7V2_PLUGIN,
  X12_PLUGIN,
  DICOMWEB_PLUGIN,
  IPS_PLUGIN,
  PDQM_PLUGIN,
  MHD_PLUGIN,
  { name: "devices", nodes: DEVICE_NODES },
  { name: "alerts", nodes: ALERT_NODES },
  { name: "consent", nodes: CONSENT_NODES },
  { name: "oura", devicePlatform: oura },
  { name: "whoop", devicePlatform: whoop },
  { name: "garmin", devicePlatform: garmin },
  { name: "polar", devicePlatform: polar },
  { name: "suunto", devicePlatform: suunto },
  { name: "google-health", devicePlatform: googleHealth },
];

export const codeHelpers: CodeHelpers = Object.assign({}, ...PLUGINS.map((p) => p.codeHelpers ?? {}));
