// Names of the HL7 v2 fields the console labels and of their data types' components, from the
// HL7 v2.5 field and data type definitions (chapters 2, 3, 4, 6 and 7), for the segments ADT,
// ORU, ORM and ACK messages carry most; other fields show their position only.
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
  IN1: ["", "Set ID", "Insurance Plan ID", "Insurance Company ID", "Insurance Company Name", "Insurance Company Address", "Insurance Co Contact Person", "Insurance Co Phone Number", "Group Number", "Group Name", "Insured's Group Emp ID", "Insured's Group Emp Name", "Plan Effective Date", "Plan Expiration Date", "Authorization Information", "Plan Type", "Name of Insured", "Insured's Relationship to Patient", "Insured's Date of Birth", "Insured's Address"],
};

/** The data type of each field whose components the console names (v2.5); index n is field n. */
const FIELD_TYPES: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  MSH: { 3: "HD", 4: "HD", 5: "HD", 6: "HD", 7: "TS", 9: "MSG", 11: "PT", 12: "VID" },
  EVN: { 2: "TS", 3: "TS", 4: "IS", 5: "XCN", 6: "TS", 7: "HD" },
  PID: { 2: "CX", 3: "CX", 4: "CX", 5: "XPN", 6: "XPN", 7: "TS", 9: "XPN", 10: "CE", 11: "XAD", 13: "XTN", 14: "XTN", 15: "CE", 16: "CE", 17: "CE", 18: "CX", 21: "CX", 22: "CE", 26: "CE", 28: "CE", 29: "TS" },
  PV1: { 3: "PL", 6: "PL", 7: "XCN", 8: "XCN", 9: "XCN", 11: "PL", 17: "XCN", 19: "CX" },
  NK1: { 2: "XPN", 3: "CE", 4: "XAD", 5: "XTN" },
  AL1: { 2: "CE", 3: "CE", 4: "CE" },
  DG1: { 3: "CE", 5: "TS" },
  ORC: { 2: "EI", 3: "EI", 4: "EI", 9: "TS", 10: "XCN", 11: "XCN", 12: "XCN" },
  OBR: { 2: "EI", 3: "EI", 4: "CE", 6: "TS", 7: "TS", 8: "TS", 10: "XCN", 14: "TS", 16: "XCN", 22: "TS" },
  OBX: { 3: "CE", 6: "CE", 14: "TS", 16: "XCN", 17: "CE" },
  MSA: {},
  ERR: { 2: "ERL", 3: "CWE" },
  IN1: { 2: "CE", 3: "CX", 4: "XON", 5: "XAD", 6: "XPN", 7: "XTN", 16: "XPN", 17: "CE", 18: "TS", 19: "XAD" },
};

/** The components of the composite data types above (v2.5 chapter 2A). */
const TYPE_COMPONENTS: Readonly<Record<string, readonly string[]>> = {
  HD: ["Namespace ID", "Universal ID", "Universal ID Type"],
  TS: ["Time", "Degree of Precision"],
  MSG: ["Message Code", "Trigger Event", "Message Structure"],
  PT: ["Processing ID", "Processing Mode"],
  VID: ["Version ID", "Internationalization Code", "International Version ID"],
  CX: ["ID Number", "Check Digit", "Check Digit Scheme", "Assigning Authority", "Identifier Type Code", "Assigning Facility", "Effective Date", "Expiration Date", "Assigning Jurisdiction", "Assigning Agency or Department"],
  XPN: ["Family Name", "Given Name", "Second and Further Given Names or Initials", "Suffix", "Prefix", "Degree", "Name Type Code", "Name Representation Code", "Name Context", "Name Validity Range", "Name Assembly Order", "Effective Date", "Expiration Date", "Professional Suffix"],
  XAD: ["Street Address", "Other Designation", "City", "State or Province", "Zip or Postal Code", "Country", "Address Type", "Other Geographic Designation", "County/Parish Code", "Census Tract", "Address Representation Code", "Address Validity Range", "Effective Date", "Expiration Date"],
  XTN: ["Telephone Number", "Telecommunication Use Code", "Telecommunication Equipment Type", "Email Address", "Country Code", "Area/City Code", "Local Number", "Extension", "Any Text", "Extension Prefix", "Speed Dial Code", "Unformatted Telephone Number"],
  CE: ["Identifier", "Text", "Name of Coding System", "Alternate Identifier", "Alternate Text", "Name of Alternate Coding System"],
  CWE: ["Identifier", "Text", "Name of Coding System", "Alternate Identifier", "Alternate Text", "Name of Alternate Coding System", "Coding System Version ID", "Alternate Coding System Version ID", "Original Text"],
  PL: ["Point of Care", "Room", "Bed", "Facility", "Location Status", "Person Location Type", "Building", "Floor", "Location Description", "Comprehensive Location Identifier", "Assigning Authority for Location"],
  XCN: ["ID Number", "Family Name", "Given Name", "Second and Further Given Names or Initials", "Suffix", "Prefix", "Degree", "Source Table", "Assigning Authority", "Name Type Code", "Identifier Check Digit", "Check Digit Scheme", "Identifier Type Code", "Assigning Facility", "Name Representation Code", "Name Context", "Name Validity Range", "Name Assembly Order", "Effective Date", "Expiration Date", "Professional Suffix", "Assigning Jurisdiction", "Assigning Agency or Department"],
  EI: ["Entity Identifier", "Namespace ID", "Universal ID", "Universal ID Type"],
  ERL: ["Segment ID", "Segment Sequence", "Field Position", "Field Repetition", "Component Number", "Sub-Component Number"],
  XON: ["Organization Name", "Organization Name Type Code", "ID Number", "Check Digit", "Check Digit Scheme", "Assigning Authority", "Identifier Type Code", "Assigning Facility", "Name Representation Code", "Organization Identifier"],
  IS: ["Value"],
};

/** The data type of SEG-n, when the console knows it. */
export function fieldType(segment: string, n: number): string | undefined {
  return FIELD_TYPES[segment]?.[n];
}

/** The name of component c (1-based) of SEG-n, e.g. PID-5.1 "Family Name". */
export function componentName(segment: string, n: number, c: number): string | undefined {
  const type = fieldType(segment, n);
  return (type && TYPE_COMPONENTS[type]?.[c - 1]) || undefined;
}

export function fieldName(segment: string, n: number): string | undefined {
  return FIELD_NAMES[segment]?.[n] || undefined;
}
