import { describe, expect, it } from "vitest";
import { DEFAULT_DELIMITERS, envelope, flatten, writeSegment, writeX12 } from "../../../../src/standards/x12/build";
import { composite, segment } from "../../../../src/standards/x12/model";
import { readX12 } from "../../../../src/standards/x12/read";
import { tokenize } from "../../../../src/standards/x12/tokenize";
import { brief, fixture, fixtureNames, x12Error } from "./support";

/** Text with the whitespace between segments removed and the given delimiters normalised to * : ^ ~. */
function normalise(text: string): string {
  const { document } = tokenize(text);
  const d = document.interchanges[0]!.delimiters;
  const isaEnd = text.indexOf("ISA");
  let out = "";
  for (const raw of text.slice(isaEnd).split(d.segment)) {
    const seg = raw.replace(/^[\s\uFEFF]+/, "").replace(/[\r\n]+$/, "");
    if (!seg) continue;
    const isIsa = seg.startsWith("ISA");
    const map = (ch: string) => (ch === d.element ? "*" : ch === d.component && !isIsa ? ":" : d.repetition && ch === d.repetition && !isIsa ? "^" : ch);
    let s = [...seg].map(map).join("");
    if (isIsa) s = `${s.slice(0, 82)}^${s.slice(83, 104)}:`;
    out += `${s}~`;
  }
  return out;
}

describe("parse → build round trip", () => {
  const valid = fixtureNames().filter((n) => !n.includes("errors"));
  it.each(valid)("%s is byte-equal after normalising delimiters and whitespace", (name) => {
    const text = fixture(name);
    const { document } = tokenize(text);
    expect(writeX12(document, { delimiters: DEFAULT_DELIMITERS })).toBe(normalise(text));
  });
  it.each(valid)("%s through the loop tree, written with other delimiters, reads back the same", (name) => {
    const r = readX12(fixture(name));
    const doc = structuredClone(r.document);
    for (const [i, t] of r.transactions.entries()) doc.interchanges[0]!.groups[0]!.transactions[i]!.body = flatten(t.root!);
    const other = { element: "|", component: ">", repetition: "!", segment: "\n" };
    const again = readX12(writeX12(doc, { delimiters: other }));
    expect(again.issues).toEqual([]);
    expect(again.document.interchanges[0]!.groups).toEqual(r.document.interchanges[0]!.groups);
  });
});

describe("builder", () => {
  it("computes SE01, GE01 and IEA01 and copies the control numbers", () => {
    const ix = envelope(
      [
        { set: "270", version: "005010X279A1", body: [segment("BHT", "0022", "13", "A", "20260101", "1200")] },
        { set: "270", version: "005010X279A1", body: [segment("BHT", "0022", "13", "B", "20260101", "1200")] },
      ],
      { sender: "CLINIC", receiver: "PAYER", control: 42, at: new Date("2026-01-02T03:04:00Z") },
    );
    const text = writeX12({ interchanges: [ix] }, { separator: "\n" });
    expect(text).toBe(
      [
        "ISA*00*          *00*          *ZZ*CLINIC         *ZZ*PAYER          *260102*0304*^*00501*000000042*0*T*:~",
        "GS*HS*CLINIC*PAYER*20260102*0304*42*X*005010X279A1~",
        "ST*270*0001*005010X279A1~",
        "BHT*0022*13*A*20260101*1200~",
        "SE*3*0001~",
        "ST*270*0002*005010X279A1~",
        "BHT*0022*13*B*20260101*1200~",
        "SE*3*0002~",
        "GE*2*42~",
        "IEA*1*000000042~",
        "",
      ].join("\n"),
    );
    expect(text.indexOf("\n")).toBe(106);
  });
  it("omits ST03 where the TR3 does not use it (835)", () => {
    const ix = envelope([{ set: "835", version: "005010X221A1", st03: false, body: [] }], { sender: "A", receiver: "B", control: 1 });
    expect(writeX12({ interchanges: [ix] })).toContain("~ST*835*0001~SE*2*0001~");
  });
  it("writes composites and repetitions with the chosen separators, trailing empties dropped", () => {
    const hi = segment("HI", `${composite("ABK", "J069")}\u001e${composite("ABF", "R51", "")}`, undefined, "");
    expect(writeSegment(hi, { element: "|", component: ">", repetition: "!", segment: "\n" })).toBe("HI|ABK>J069!ABF>R51\n");
  });
  it("keeps ISA11 'U' for a 4010 interchange whatever delimiters are asked for", () => {
    const text = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *260101*1200*U*00401*000000001*0*T*:~IEA*0*000000001~";
    const out = writeX12(tokenize(text).document, { delimiters: { element: "|", component: ">", repetition: "^", segment: "~" } });
    expect(out.slice(81, 88)).toBe("|U|0040");
    expect(tokenize(out).document.interchanges[0]!.delimiters).toEqual({ element: "|", component: ">", repetition: undefined, segment: "~" });
  });
  it("refuses a value holding a delimiter instead of corrupting the interchange", () => {
    const e = x12Error(() => writeSegment(segment("NM1", "IL", "1", "SMITH*JONES"), DEFAULT_DELIMITERS));
    expect([e.code, e.segmentId, e.element]).toEqual(["DELIMITER_IN_DATA", "NM1", 3]);
  });
  it("refuses an ISA field holding a chosen delimiter", () => {
    const ix = envelope([{ set: "270", version: "005010X279A1", body: [] }], { sender: "A~B", receiver: "B", control: 1 });
    const e = x12Error(() => writeX12({ interchanges: [ix] }));
    expect([e.code, e.element]).toEqual(["DELIMITER_IN_DATA", 6]);
  });
  it("refuses an ISA field longer than its width and a bad control number", () => {
    const long = envelope([{ set: "270", version: "005010X279A1", body: [] }], { sender: "A".repeat(16), receiver: "B", control: 1 });
    expect(x12Error(() => writeX12({ interchanges: [long] })).element).toBe(6);
    expect(x12Error(() => envelope([{ set: "270", version: "005010X279A1", body: [] }], { sender: "A", receiver: "B", control: 0 })).code).toBe("BAD_BUILD_INPUT");
  });
  it("an interchange it builds reads back without envelope issues", () => {
    const body = readX12(fixture("837P-subscriber.x12")).transactions[0]!.root!;
    const ix = envelope([{ set: "837", version: "005010X222A1", body }], { sender: "NWBILLING", receiver: "CASCADEHP", control: 7 });
    const again = readX12(writeX12({ interchanges: [ix] }));
    expect(brief(again.issues)).toEqual([]);
    expect(again.transactions[0]!.table!.id).toBe("837P");
  });
});
