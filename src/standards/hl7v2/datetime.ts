// HL7 v2 date/time (DT, DTM, TS.1, TM) to FHIR date, dateTime, instant and time.
// Precision is kept where FHIR allows it: YYYY, YYYY-MM and YYYY-MM-DD stay as
// they are; a time needs seconds and a zone in FHIR, so an hour or minute precision
// value is padded with zeros and a value without an offset gets the default one
// (the offset of MSH-7 when the converter knows it, as HL7 v2 says the sender's
// zone applies, otherwise the configured default, otherwise UTC).

export interface Hl7DateTime {
  year: string;
  month?: string;
  day?: string;
  hour?: string;
  minute?: string;
  second?: string;
  fraction?: string;
  /** "+hh:mm" / "-hh:mm" */
  offset?: string;
}

const DTM = /^(\d{4})(?:(\d{2})(?:(\d{2})(?:(\d{2})(?:(\d{2})(?:(\d{2})(?:\.(\d{1,4}))?)?)?)?)?)?([+-]\d{4})?$/;

/** Turn "+0215" into "+02:15"; undefined when it is not a valid FHIR zone offset. */
export function hl7Offset(raw: string): string | undefined {
  const m = /^([+-])(\d{2})(\d{2})$/.exec(raw);
  if (!m) return undefined;
  const h = Number(m[2]);
  const min = Number(m[3]);
  if (min > 59 || h > 14 || (h === 14 && min > 0)) return undefined;
  return `${m[1]}${m[2]}:${m[3]}`;
}

/** Parse an HL7 DTM (also the first component of a TS). Undefined when invalid. */
export function parseHl7DateTime(raw: string): Hl7DateTime | undefined {
  const m = DTM.exec(raw.trim());
  if (!m) return undefined;
  const [, year, month, day, hour, minute, second, fraction, offset] = m;
  const out: Hl7DateTime = { year: year! };
  if (month !== undefined) {
    const mo = Number(month);
    if (mo < 1 || mo > 12) return undefined;
    out.month = month;
  }
  if (day !== undefined) {
    const y = Number(year);
    const mo = Number(month);
    const dd = Number(day);
    const last = new Date(Date.UTC(y, mo, 0)).getUTCDate();
    if (dd < 1 || dd > last) return undefined;
    out.day = day;
  }
  if (hour !== undefined) {
    if (Number(hour) > 23) return undefined;
    out.hour = hour;
  }
  if (minute !== undefined) {
    if (Number(minute) > 59) return undefined;
    out.minute = minute;
  }
  if (second !== undefined) {
    if (Number(second) > 59) return undefined;
    out.second = second;
  }
  if (fraction !== undefined) out.fraction = fraction;
  if (offset !== undefined) {
    const o = hl7Offset(offset);
    if (o === undefined) return undefined;
    out.offset = o;
  }
  return out;
}

/** FHIR date (YYYY, YYYY-MM or YYYY-MM-DD): time and zone dropped. */
export function toFhirDate(raw: string): string | undefined {
  const t = parseHl7DateTime(raw);
  if (!t) return undefined;
  return [t.year, t.month, t.day].filter((x) => x !== undefined).join("-");
}

/** FHIR dateTime, keeping the precision of the source. */
export function toFhirDateTime(raw: string, defaultOffset = "Z"): string | undefined {
  const t = parseHl7DateTime(raw);
  if (!t) return undefined;
  const date = [t.year, t.month, t.day].filter((x) => x !== undefined).join("-");
  if (t.hour === undefined) return date;
  const frac = t.fraction ? `.${t.fraction}` : "";
  return `${date}T${t.hour}:${t.minute ?? "00"}:${t.second ?? "00"}${frac}${t.offset ?? defaultOffset}`;
}

/** FHIR instant: needs a full date and a time of day; undefined otherwise. */
export function toFhirInstant(raw: string, defaultOffset = "Z"): string | undefined {
  const t = parseHl7DateTime(raw);
  if (!t || t.hour === undefined) return undefined;
  return toFhirDateTime(raw, defaultOffset);
}

/** HL7 TM (HH[MM[SS[.S]]][+ZZZZ]) to FHIR time (hh:mm:ss[.s], no zone). */
export function toFhirTime(raw: string): string | undefined {
  const m = /^(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?(?:\.(\d{1,4}))?(?:[+-]\d{4})?$/.exec(raw.trim());
  if (!m) return undefined;
  const [, h, min = "00", s = "00", f] = m;
  if (Number(h) > 23 || Number(min) > 59 || Number(s) > 59) return undefined;
  return `${h}:${min}:${s}${f ? `.${f}` : ""}`;
}

/** The zone offset written in an HL7 DTM, as "+hh:mm", if any. */
export function offsetOf(raw: string): string | undefined {
  return parseHl7DateTime(raw)?.offset;
}

/** Add minutes to a FHIR dateTime that has a time, keeping its zone offset. Undefined for date-only values. */
export function addMinutes(fhirDateTime: string, minutes: number): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(fhirDateTime);
  if (!m) return undefined;
  const zone = m[4]!;
  const t = Date.parse(`${m[1]}T${m[2]}Z`) + Math.round(minutes * 60000);
  if (!Number.isFinite(t)) return undefined;
  const local = new Date(t).toISOString().slice(0, 19); // wall-clock time in the same zone
  return `${local}${zone}`;
}
