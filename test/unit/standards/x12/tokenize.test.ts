import { describe, expect, it } from "vitest";
import { checkEnvelopes } from "../../../../src/standards/x12/envelope";
import { COMPONENT, comp, el, REPETITION, repetitions } from "../../../../src/standards/x12/model";
import { tokenize } from "../../../../src/standards/x12/tokenize";
import { brief, fixture, wrap, x12Error } from "./support";

const ISA = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *260101*1200*^*00501*000000001*0*T*:~";

describe("tokenizer: delimiters from the ISA", () => {
  it("reads element, repetition (ISA11), component (ISA16) and segment separators", () => {
    const text = "ISA|00|          |00|          |ZZ|SENDER         |ZZ|RECEIVER       |260101|1200|!|00501|000000001|0|T|>\nGS|HC|S|R|20260101|1200|1|X|005010X222A1\nST|837|0001|005010X222A1\nHI|ABK>J069|ABF>R51!ABF>R52\nSE|3|0001\nGE|1|1\nIEA|1|000000001\n";
    const { document, issues } = tokenize(text);
    expect(issues).toEqual([]);
    const ix = document.interchanges[0]!;
    expect(ix.delimiters).toEqual({ element: "|", component: ">", repetition: "!", segment: "\n" });
    const hi = ix.groups[0]!.transactions[0]!.body[0]!;
    expect(comp(hi, 1, 1)).toBe("ABK");
    expect(comp(hi, 1, 2)).toBe("J069");
    expect(repetitions(el(hi, 2))).toEqual([`ABF${COMPONENT}R51`, `ABF${COMPONENT}R52`]);
  });

  it("keeps ISA11 as data before 00501 (no repetition separator in 4010)", () => {
    const text = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *260101*1200*U*00401*000000001*0*T*:~IEA*0*000000001~";
    const { document } = tokenize(text);
    expect(document.interchanges[0]!.delimiters.repetition).toBeUndefined();
  });

  it("skips a byte-order mark, indentation, CR/LF between segments", () => {
    const plain = wrap("837", ["BHT*0019*00*X*20260101*1200*CH"], "005010X222A1");
    const messy = `\uFEFF  ${plain.replaceAll("~\n", "~\r\n    ")}`;
    const a = tokenize(plain).document;
    const b = tokenize(messy).document;
    expect(b).toEqual(a);
    expect(b.interchanges[0]!.groups[0]!.transactions[0]!.body[0]!.id).toBe("BHT");
  });

  it("accepts CR as the segment terminator with LF after it", () => {
    const text = fixture("837P-dependent.x12");
    const { document, issues } = tokenize(text);
    expect(issues).toEqual([]);
    expect(document.interchanges[0]!.delimiters.segment).toBe("\r");
    expect(document.interchanges[0]!.groups[0]!.transactions[0]!.body.every((s) => !s.id.includes("\n"))).toBe(true);
  });

  it("reads several interchanges, groups and transaction sets in one file, each with its own delimiters", () => {
    const one = wrap("270", ["BHT*0022*13*A*20260101*1200"], "005010X279A1", { gs01: "HS" });
    const twoSets = one.replace("SE*3*0001~\n", "SE*3*0001~\nST*270*0002*005010X279A1~\nBHT*0022*13*B*20260101*1200~\nSE*3*0002~\n").replace("GE*1*1", "GE*2*1");
    const other = fixture("837P-dependent.x12");
    const { document, issues } = tokenize(`${twoSets}GS*HS*SENDER*RECEIVER*20260101*1200*2*X*005010X279A1~ST*270*0003*005010X279A1~BHT*0022*13*C*20260101*1200~SE*3*0003~GE*1*2~IEA*2*000000001~`.replace("IEA*1*000000001~\n", "") + other);
    expect(issues).toEqual([]);
    expect(checkEnvelopes(document)).toEqual([]);
    expect(document.interchanges.map((i) => i.groups.map((g) => g.transactions.length))).toEqual([[2, 1], [1]]);
    expect(document.interchanges[1]!.delimiters.element).toBe("|");
  });

  it("numbers segments across the whole file", () => {
    const { document } = tokenize(fixture("270-subscriber.x12"));
    const tx = document.interchanges[0]!.groups[0]!.transactions[0]!;
    expect(document.interchanges[0]!.isa.index).toBe(0);
    expect(tx.st.index).toBe(2);
    expect(tx.body[0]!.index).toBe(3);
  });
});

describe("tokenizer errors are typed, with the place", () => {
  it("empty text", () => {
    expect(x12Error(() => tokenize(" \r\n")).code).toBe("EMPTY");
  });
  it("no ISA", () => {
    const e = x12Error(() => tokenize("GS*HC*S*R~"));
    expect([e.code, e.segmentIndex]).toEqual(["NO_ISA", 0]);
  });
  it("ISA shorter than 106 characters names the element that is off", () => {
    const e = x12Error(() => tokenize(ISA.replace("SENDER         ", "SENDER")));
    expect([e.code, e.segmentId, e.element]).toEqual(["BAD_ISA", "ISA", 6]);
    expect(e.message).toMatch(/ISA06 must be 15 characters/);
  });
  it("ISA cut before its terminator", () => {
    expect(x12Error(() => tokenize(ISA.slice(0, 105))).code).toBe("BAD_ISA");
  });
  it("alphanumeric element separator", () => {
    const e = x12Error(() => tokenize(ISA.replaceAll("*", "A")));
    expect([e.code, e.element]).toEqual(["BAD_ISA", 1]);
  });
  it("component separator equal to the segment terminator", () => {
    const e = x12Error(() => tokenize(ISA.replace("*T*:~", "*T*~~")));
    expect([e.code, e.element]).toEqual(["BAD_ISA", 16]);
  });
  it("ISA09, ISA10 and ISA13 must be digits (a TA1 quotes them back)", () => {
    const e = x12Error(() => tokenize(ISA.replace("*000000001*", "*00000000A*")));
    expect([e.code, e.element]).toEqual(["BAD_ISA", 13]);
    expect(x12Error(() => tokenize(ISA.replace("*260101*", "*2601 1*"))).element).toBe(9);
  });
  it("an ISA value holding a delimiter", () => {
    const e = x12Error(() => tokenize(ISA.replace("SENDER         ", "SEND:R         ")));
    expect([e.code, e.element]).toEqual(["BAD_ISA", 6]);
  });
  it("junk after an interchange", () => {
    const e = x12Error(() => tokenize(`${fixture("270-subscriber.x12")}\nHELLO`));
    expect(e.code).toBe("NO_ISA");
    expect(e.message).toContain("HELLO");
  });
});

describe("envelope checks", () => {
  const text = fixture("270-subscriber.x12");
  const issuesOf = (t: string) => {
    const { document, issues } = tokenize(t);
    return [...issues, ...checkEnvelopes(document)];
  };
  it("a valid interchange has none", () => {
    expect(issuesOf(text)).toEqual([]);
  });
  it("SE01 counts the segments from ST to SE", () => {
    expect(brief(issuesOf(text.replace("SE*14*0001", "SE*13*0001")))).toEqual([["SE_COUNT_MISMATCH", "SE", 1, "SE", 14]]);
  });
  it("SE02 equals ST02", () => {
    expect(brief(issuesOf(text.replace("SE*14*0001", "SE*14*0002")))).toEqual([["SE_CONTROL_MISMATCH", "SE", 2, "SE", 14]]);
  });
  it("GE02 equals GS06, GE01 counts the sets", () => {
    const issues = issuesOf(text.replace("GE*1*401", "GE*2*402"));
    expect(issues.map((e) => [e.code, e.segmentId, e.element])).toEqual([
      ["GE_CONTROL_MISMATCH", "GE", 2],
      ["GE_COUNT_MISMATCH", "GE", 1],
    ]);
  });
  it("IEA02 equals ISA13, IEA01 counts the groups", () => {
    const issues = issuesOf(text.replace("IEA*1*000000401", "IEA*3*000000400"));
    expect(issues.map((e) => [e.code, e.segmentId, e.element])).toEqual([
      ["IEA_CONTROL_MISMATCH", "IEA", 2],
      ["IEA_COUNT_MISMATCH", "IEA", 1],
    ]);
  });
  it("missing trailers are reported where their header is", () => {
    const noSe = text.replace("SE*14*0001~\n", "");
    expect(issuesOf(noSe).map((e) => [e.code, e.segmentId, e.segmentIndex])).toEqual([["MISSING_SE", "ST", 2]]);
    const noGe = text.replace("GE*1*401~\n", "");
    expect(issuesOf(noGe).map((e) => [e.code, e.segmentId])).toEqual([["MISSING_GE", "GS"]]);
    const noIea = text.replace("IEA*1*000000401~", "");
    expect(issuesOf(noIea).map((e) => [e.code, e.segmentId])).toEqual([["MISSING_IEA", "ISA"]]);
  });
  it("a missing IEA before the next ISA ends the first interchange", () => {
    const two = text.replace("IEA*1*000000401~", "") + fixture("270-dependent.x12");
    const { document, issues } = tokenize(two);
    expect(document.interchanges).toHaveLength(2);
    expect(issues.map((e) => e.code)).toEqual(["MISSING_IEA"]);
  });
  it("segments outside a set are reported, not dropped silently", () => {
    const issues = issuesOf(text.replace("GE*1*401~", "NTE*stray~\nGE*1*401~"));
    expect(issues.map((e) => [e.code, e.segmentId])).toEqual([["UNEXPECTED_ENVELOPE", "NTE"]]);
  });
  it("a segment id that is not one is reported", () => {
    const issues = issuesOf(text.replace("EQ*98~", "eq*98~"));
    expect(issues.map((e) => e.code)).toEqual(["BAD_SEGMENT_ID"]);
  });
  it("keeps repetition separators apart from components", () => {
    const { document } = tokenize(wrap("837", ["HI*ABK:J069^ABF:R51"], "005010X222A1"));
    expect(el(document.interchanges[0]!.groups[0]!.transactions[0]!.body[0]!, 1)).toBe(`ABK${COMPONENT}J069${REPETITION}ABF${COMPONENT}R51`);
  });
});
