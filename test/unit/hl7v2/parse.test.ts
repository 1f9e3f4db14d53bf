import { describe, expect, it } from "vitest";
import { Hl7ParseError } from "../../../src/standards/hl7v2/errors";
import { escapeValue, unescapeValue } from "../../../src/standards/hl7v2/escape";
import { parsePath } from "../../../src/standards/hl7v2/message";
import { parseBatch, parseMessage, parseMessages, readMsh } from "../../../src/standards/hl7v2/parse";
import { fixture, fixtureNames } from "./support";

const CR = "\r";
const msg = (...segments: string[]) => segments.join(CR);
const MSH25 = "MSH|^~\\&|APP|FAC|RAPP|RFAC|20240102030405+0100||ADT^A01^ADT_A01|CTRL1|P|2.5";

/** The canonical form a round-trip must reproduce: no BOM, CR terminators, trailing CR. */
const canonical = (text: string) =>
  text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n|\n/g, "\r")
    .replace(/\r*$/, "\r");

function parseError(f: () => unknown): Hl7ParseError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(Hl7ParseError);
    return e as Hl7ParseError;
  }
  throw new Error("expected an Hl7ParseError");
}

describe("HL7 v2 samples", () => {
  const names = fixtureNames();
  it("has the 139 sample messages", () => {
    expect(names.length).toBe(139);
  });
  it.each(names)("%s parses and round-trips", (name) => {
    const text = fixture(name);
    const m = parseMessage(text);
    expect(m.header.name).toBe("MSH");
    expect(m.messageType).toMatch(/^[A-Z]{3}$/);
    expect(m.controlId).not.toBe("");
    expect(m.toString()).toBe(canonical(text));
    // a second pass is stable, and LF output re-parses to the same message
    expect(parseMessage(m.toString()).toString()).toBe(m.toString());
    expect(parseMessage(m.toString({ lineEnd: "\n" })).toString()).toBe(m.toString());
  });
  it("accepts the byte-order mark of ORM-O01-01.hl7 and LF line ends", () => {
    const text = fixture("ORM-O01-01.hl7");
    expect(text.charCodeAt(0)).toBe(0xfeff);
    expect(text.includes("\r")).toBe(false);
    const m = parseMessage(text);
    expect(m.messageType).toBe("ORM");
    expect(m.triggerEvent).toBe("O01");
    expect(m.segments.map((s) => s.name).slice(0, 3)).toEqual(["MSH", "PID", "PV1"]);
  });
});

describe("line ends and framing", () => {
  it.each([
    ["CR", "\r"],
    ["LF", "\n"],
    ["CRLF", "\r\n"],
  ])("splits segments on %s", (_, eol) => {
    const m = parseMessage([MSH25, "PID|1||123^^^HOSP^MR", "PV1|1|I"].join(eol) + eol);
    expect(m.segments.map((s) => s.name)).toEqual(["MSH", "PID", "PV1"]);
    expect(m.get("PID-3.1")).toBe("123");
  });
  it("ignores MLLP framing bytes, a BOM and blank lines", () => {
    const m = parseMessage(`\u000b\uFEFF${MSH25}\r\r\nPID|1||9\r\u001c\r`.replace("\u000b\uFEFF", "\uFEFF\u000b"));
    expect(m.segments.length).toBe(2);
  });
});

describe("delimiters and escapes", () => {
  it("reads non-default delimiters from MSH-1/MSH-2, including the v2.7 truncation character", () => {
    const m = parseMessage(msg("MSH#:*!@%#A#F#R#RF#20240101##ADT:A01#1#P#2.8", "PID#1##X@!T!:Y*Z@Q"));
    expect(m.delimiters).toEqual({ field: "#", component: ":", repetition: "*", escape: "!", subcomponent: "@", truncation: "%" });
    expect(m.get("PID-3.1.1")).toBe("X");
    expect(m.get("PID-3.1.2")).toBe("@"); // !T! is the subcomponent separator
    expect(m.get("PID-3.2")).toBe("Y");
    expect(m.get("PID-3[2].1.2")).toBe("Q");
    expect(m.header.get("1")).toBe("#");
    expect(m.header.get("2")).toBe(":*!@%");
    expect(m.toString()).toBe(`${msg("MSH#:*!@%#A#F#R#RF#20240101##ADT:A01#1#P#2.8", "PID#1##X@!T!:Y*Z@Q")}\r`);
  });
  it("decodes \\F\\ \\S\\ \\T\\ \\R\\ \\E\\ \\P\\ \\X..\\ and formatting sequences", () => {
    const d = { field: "|", component: "^", repetition: "~", escape: "\\", subcomponent: "&", truncation: "#" };
    expect(unescapeValue("a\\F\\b\\S\\c\\T\\d\\R\\e\\E\\f\\P\\", d)).toBe("a|b^c&d~e\\f#");
    expect(unescapeValue("line1\\.br\\line2\\.sp2\\x", d)).toBe("line1\nline2\n\nx");
    expect(unescapeValue("\\X48656C6C6F\\ \\XC3A9\\", d)).toBe("Hello é");
    expect(unescapeValue("\\H\\bold\\N\\ \\.in+4\\x\\.ce\\", d)).toBe("bold x");
    expect(unescapeValue("keep \\Zlocal\\ and \\unterminated", d)).toBe("keep \\Zlocal\\ and \\unterminated");
    expect(unescapeValue("\\XZZ\\", d)).toBe("\\XZZ\\");
  });
  it("escapes values so they survive a write/read round-trip", () => {
    const d = { field: "|", component: "^", repetition: "~", escape: "\\", subcomponent: "&", truncation: "#" };
    for (const s of ["a|b^c~d&e\\f#g", "two\nlines", "cr\rhere", "plain"]) expect(unescapeValue(escapeValue(s, d), d)).toBe(s);
    expect(escapeValue("A&B", d)).toBe("A\\T\\B");
  });
  it("decodes escapes in field reads but keeps them in the raw text", () => {
    const m = parseMessage(msg(MSH25, "NTE|1||Salmonella \\T\\ Shigella\\.br\\next|"));
    expect(m.get("NTE-3")).toBe("Salmonella & Shigella\nnext");
    expect(m.segment("NTE")!.fields[3]).toBe("Salmonella \\T\\ Shigella\\.br\\next");
  });
  it.each([
    ["alphanumeric field separator", "MSHA^~\\&A"],
    ["repeated character", "MSH|^^\\&|A|B|C|D|1||ADT^A01|1|P|2.5"],
    ["too few encoding characters", "MSH|^|A|B|C|D|1||ADT^A01|1|P|2.5"],
    ["too many encoding characters", "MSH|^~\\&#!|A|B|C|D|1||ADT^A01|1|P|2.5"],
    ["space as an encoding character", "MSH|^ \\&|A|B|C|D|1||ADT^A01|1|P|2.5"],
    ["letters as encoding characters", "MSH|ab\\&|A|B|C|D|1||ADT^A01|1|P|2.5"],
  ])("refuses bad delimiters: %s", (_, text) => {
    expect(parseError(() => parseMessage(text)).code).toBe("BAD_DELIMITERS");
  });
});

describe("repetitions, components, subcomponents and paths", () => {
  const m = parseMessage(
    msg(
      "MSH|^~\\&|APP|FAC^1.2.3^ISO|RAPP|RFAC|20240102||ORU^R01^ORU_R01|C1|P|2.5.1",
      "PID|1||111^^^HOSP&1.2.3&ISO^MR~222^^^SSA^SS||DOE&VAN&DER^JOHN^Q||19700101|M",
      "OBX|1|NM|8867-4^Heart rate^LN||72|/min^^UCUM",
      "OBX|2|ST|X^Y^L||first~second",
      "ZPI|1|custom^value",
    ),
  );
  it("reads by path with repetition, component and subcomponent", () => {
    expect(m.get("PID-3")).toBe("111");
    expect(m.get("PID-3[2].1")).toBe("222");
    expect(m.get("PID-3[1].4.2")).toBe("1.2.3");
    expect(m.get("PID-3.4.3")).toBe("ISO");
    expect(m.get("PID-5.1.2")).toBe("VAN");
    expect(m.get("PID-5.2")).toBe("JOHN");
    expect(m.get("PID-3[3].1")).toBeUndefined();
    expect(m.get("PID-30")).toBeUndefined();
    expect(m.get("MSH-4.2")).toBe("1.2.3");
    expect(m.get("MSH-9.3")).toBe("ORU_R01");
  });
  it("reads segment occurrences and all values", () => {
    expect(m.get("OBX[2]-5")).toBe("first");
    expect(m.get("OBX[2]-5[2]")).toBe("second");
    expect(m.getAll("OBX-5")).toEqual(["72", "first", "second"]);
    expect(m.getAll("PID-3.1")).toEqual(["111", "222"]);
    expect(m.segmentsNamed("OBX").length).toBe(2);
  });
  it("keeps Z-segments", () => {
    expect(m.get("ZPI-2.2")).toBe("value");
  });
  it("has typed header accessors", () => {
    expect([m.messageType, m.triggerEvent, m.messageStructure, m.controlId, m.processingId, m.version]).toEqual([
      "ORU",
      "R01",
      "ORU_R01",
      "C1",
      "P",
      "2.5.1",
    ]);
    expect(m.sendingFacility.s(2)).toBe("1.2.3");
  });
  it("exposes the value tree", () => {
    const f = m.segment("PID")!.field(3);
    expect(f.repetitions().length).toBe(2);
    expect(f.rep(1).comp(4).sub(2).value).toBe("1.2.3");
    expect(f.rep(2).s(4)).toBe("SSA");
    expect(f.rep(1).part(4).s(3)).toBe("ISO");
  });
  it("parses paths", () => {
    expect(parsePath("PID-3[1].4.1")).toEqual({ segment: "PID", occurrence: undefined, field: 3, repetition: 1, component: 4, subcomponent: 1 });
    expect(parsePath("OBX[2]-5")).toMatchObject({ segment: "OBX", occurrence: 2, field: 5 });
    expect(() => parsePath("pid-3")).toThrow(RangeError);
    expect(() => parsePath("PID-3.0")).toThrow(RangeError);
  });
  it("writes values (escaped) and re-encodes", () => {
    const w = parseMessage(msg(MSH25, "PID|1||123"));
    w.set("PID-5.1", "O'Neil & Sons");
    w.set("PID-3[2].4.2", "2.16.840");
    w.set("PID-8", "F");
    expect(w.get("PID-5.1")).toBe("O'Neil & Sons");
    expect(w.segment("PID")!.toString()).toBe("PID|1||123~^^^&2.16.840||O'Neil \\T\\ Sons|||F");
    expect(parseMessage(w.toString()).get("PID-3[2].4.2")).toBe("2.16.840");
    expect(() => w.set("MSH-2", "x")).toThrow(RangeError);
  });
});

describe("batches", () => {
  const one = (id: string) => [`MSH|^~\\&|A|B|C|D|20240101||ADT^A08^ADT_A01|${id}|P|2.5`, `PID|1||${id}^^^H^MR`];
  it("parses FHS/BHS/BTS/FTS with several messages", () => {
    const text = ["FHS|^~\\&|A|B", "BHS|^~\\&|A|B", ...one("M1"), ...one("M2"), "BTS|2", "BHS|^~\\&|A|B", ...one("M3"), "BTS|1", "FTS|2"].join("\n");
    const b = parseBatch(text);
    expect(b.fileHeader?.name).toBe("FHS");
    expect(b.batches.length).toBe(2);
    expect(b.batches[0]!.messages.map((m) => m.controlId)).toEqual(["M1", "M2"]);
    expect(b.batches[1]!.trailer?.get("1")).toBe("1");
    expect(b.fileTrailer?.name).toBe("FTS");
    expect(b.messages.length).toBe(3);
    expect(b.warnings).toEqual([]);
  });
  it("warns when trailer counts disagree", () => {
    const b = parseBatch(["BHS|^~\\&|A", ...one("M1"), "BTS|5"].join("\r"));
    expect(b.warnings[0]).toMatch(/BTS-1 says 5/);
  });
  it("accepts plain concatenated messages and a single message", () => {
    expect(parseMessages([...one("X"), ...one("Y")].join("\r")).map((m) => m.controlId)).toEqual(["X", "Y"]);
    expect(parseMessages(one("Z").join("\r")).length).toBe(1);
  });
  it("refuses a batch where one message was expected, and segments outside a message", () => {
    expect(parseError(() => parseMessage([...one("X"), ...one("Y")].join("\r"))).code).toBe("BAD_BATCH");
    expect(parseError(() => parseMessage(["BHS|^~\\&|A", ...one("M1")].join("\r"))).code).toBe("BAD_BATCH");
    expect(parseError(() => parseBatch(["BHS|^~\\&|A", "PID|1"].join("\r"))).code).toBe("NO_MSH");
    expect(parseError(() => parseBatch(["BHS|^~\\&|A", ...one("M1"), "FTS|1", "PID|1"].join("\r"))).code).toBe("BAD_BATCH");
  });
});

describe("malformed input gives a typed error, never a crash", () => {
  it.each([
    ["empty", "", "EMPTY"],
    ["blank", " \r\n ", "EMPTY"],
    ["no MSH", "PID|1||123", "NO_MSH"],
    ["text", "hello world", "NO_MSH"],
    ["header cut short", "MSH|^~\\&|A|B|C", "TRUNCATED"],
    ["no field separator", "MSH", "TRUNCATED"],
    ["no MSH-9", "MSH|^~\\&|A|B|C|D|20240101||||P|2.5", "TRUNCATED"],
    ["bad segment name", `${MSH25}\rpid|1`, "BAD_SEGMENT"],
    ["segment with other separator", `${MSH25}\rPID#1`, "BAD_SEGMENT"],
  ])("%s", (_, text, code) => {
    expect(parseError(() => parseMessage(text)).code).toBe(code);
  });
  it("rejects non-text input with a typed error", () => {
    expect(parseError(() => parseMessage(undefined as unknown as string)).code).toBe("EMPTY");
  });
  it("every prefix of every sample either parses or fails with an Hl7ParseError", () => {
    let failures = 0;
    for (const name of fixtureNames()) {
      const text = fixture(name);
      for (const cut of [1, 3, 4, 8, 20, 60, 120, Math.floor(text.length / 2), text.length - 1]) {
        try {
          parseMessage(text.slice(0, cut));
        } catch (e) {
          if (!(e instanceof Hl7ParseError)) throw e;
          failures++;
        }
      }
    }
    expect(failures).toBeGreaterThan(0);
  });
  it("readMsh reads the header of a message whose body is broken", () => {
    const { msh, delimiters } = readMsh(`${MSH25}\rthis is not a segment`);
    expect(delimiters.field).toBe("|");
    expect(msh.get("10")).toBe("CTRL1");
    expect(parseError(() => readMsh("PID|1")).code).toBe("NO_MSH");
  });
});
