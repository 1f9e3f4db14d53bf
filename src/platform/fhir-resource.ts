// FHIR R4's resource and Bundle shapes: the vocabulary every floor speaks (the store, the pipelines,
// the pure codecs of HL7 v2, X12 and DICOMweb that also load in Node for the bridge and the
// benches). Data types only; what the store does with them is features/fhir's port.

export interface Meta {
  versionId?: string;
  lastUpdated?: string;
  source?: string;
  profile?: string[];
  tag?: { system?: string; code?: string; display?: string }[];
  security?: { system?: string; code?: string; display?: string }[];
}

export interface Resource {
  resourceType: string;
  id?: string;
  meta?: Meta;
  [key: string]: unknown;
}

export interface BundleEntry {
  fullUrl?: string;
  resource?: Resource;
  search?: { mode?: "match" | "include" | "outcome"; score?: number };
  request?: { method: string; url: string; ifNoneExist?: string; ifMatch?: string; ifNoneMatch?: string };
  response?: { status: string; location?: string; etag?: string; lastModified?: string; outcome?: Resource };
}

export interface Bundle extends Resource {
  resourceType: "Bundle";
  type: string;
  total?: number;
  link?: { relation: string; url: string }[];
  entry?: BundleEntry[];
}
