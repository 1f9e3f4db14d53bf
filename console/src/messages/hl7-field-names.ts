// Names of the HL7 v2 fields the console labels (v2.5.1, the segments ADT, ORU and ORM messages
// carry most); other fields show their position only.
export const FIELD_NAMES: Readonly<Record<string, readonly string[]>> = {
  // index n is field n; index 0 is unused
  MSH: ["", "Field Separator", "Encoding Characters", "Sending Application", "Sending Facility", "Receiving Application", "Receiving Facility", "Date/Time of Message", "Security", "Message Type", "Message Control ID", "Processing ID", "Version ID", "Sequence Number", "Continuation Pointer", "Accept Acknowledgment Type", "Application Acknowledgment Type", "Country Code", "Character Set", "Principal Language of Message"],
  EVN: ["", "Event Type Code", "Recorded Date/Time", "Date/Time Planned Event", "Event Reason Code", "Operator ID", "Event Occurred", "Event Facility"],
  PID: ["", "Set ID", "Patient ID", "Patient Identifier List", "Alternate Patient ID", "Patient Name", "Mother's Maiden Name", "Date/Time of Birth", "Administrative Sex", "Patient Alias", "Race", "Patient Address", "County Code", "Phone Number - Home", "Phone Number - Business", "Primary Language", "Marital Status", "Religion", "Patient Account Number", "SSN Number", "Driver's License Number", "Mother's Identifier", "Ethnic Group", "Birth Place", "Multiple Birth Indicator", "Birth Order", "Citizenship", "Veterans Military Status", "Nationality", "Patient Death Date and Time", "Patient Death Indicator"],
  PV1: ["", "Set ID", "Patient Class", "Assigned Patient Location", "Admission Type", "Preadmit Number", "Prior Patient Location", "Attending Doctor", "Referring Doctor", "Consulting Doctor", "Hospital Service", "Temporary Location", "Preadmit Test Indicator", "Re-admission Indicator", "Admit Source", "Ambulatory Status", "VIP Indicator", "Admitting Doctor", "Patient Type", "Visit Number"],
  NK1: ["", "Set ID", "Name", "Relationship", "Address", "Phone Number"],
  AL1: ["", "Set ID", "Allergen Type Code", "Allergen Code/Mnemonic/Description", "Allergy Severity Code", "Allergy Reaction Code", "Identification Date"],
  DG1: ["", "Set ID", "Diagnosis Coding Method", "Diagnosis Code", "Diagnosis Description", "Diagnosis Date/Time", "Diagnosis Type"],
  ORC: ["", "Order Control", "Placer Order Number", "Filler Order Number", "Placer Group Number", "Order Status", "Response Flag", "Quantity/Timing", "Parent", "Date/Time of Transaction", "Entered By", "Verified By", "Ordering Provider"],
  OBR: ["", "Set ID", "Placer Order Number", "Filler Order Number", "Universal Service Identifier", "Priority", "Requested Date/Time", "Observation Date/Time", "Observation End Date/Time", "Collection Volume", "Collector Identifier", "Specimen Action Code", "Danger Code", "Relevant Clinical Information", "Specimen Received Date/Time", "Specimen Source", "Ordering Provider", "Order Callback Phone Number", "Placer Field 1", "Placer Field 2", "Filler Field 1", "Filler Field 2", "Results Rpt/Status Chng - Date/Time", "Charge to Practice", "Diagnostic Serv Sect ID", "Result Status"],
  OBX: ["", "Set ID", "Value Type", "Observation Identifier", "Observation Sub-ID", "Observation Value", "Units", "References Range", "Abnormal Flags", "Probability", "Nature of Abnormal Test", "Observation Result Status", "Effective Date of Reference Range", "User Defined Access Checks", "Date/Time of the Observation", "Producer's ID", "Responsible Observer", "Observation Method"],
  NTE: ["", "Set ID", "Source of Comment", "Comment", "Comment Type"],
  MSA: ["", "Acknowledgment Code", "Message Control ID", "Text Message"],
  ERR: ["", "Error Code and Location", "Error Location", "HL7 Error Code", "Severity"],
};

export function fieldName(segment: string, n: number): string | undefined {
  return FIELD_NAMES[segment]?.[n] || undefined;
}
