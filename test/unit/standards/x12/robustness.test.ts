// Damaged input never makes the X12 modules throw anything but an X12Error (which a node
// turns into a 4xx): truncations, dropped segments and changed characters of every fixture.
import { describe, expect, it } from "vitest";
import { acknowledge } from "../../../../src/standards/x12/ack";
import { writeX12 } from "../../../../src/standards/x12/build";
import { X12Error } from "../../../../src/standards/x12/errors";
import { x12ToFhir } from "../../../../src/standards/x12/fhir/index";
import { readX12 } from "../../../../src/standards/x12/read";
import { fixture, fixtureNames } from "./support";
import { seededRandom } from "../../../../scripts/lib/seeded-random";


function damaged(text: string, seed: number): string {
  const rnd = seededRandom(seed);
  const kind = seed % 3;
  if (kind === 0) return text.slice(0, Math.floor(rnd() * text.length));
  if (kind === 1) {
    const segs = text.split("~");
    segs.splice(1 + Math.floor(rnd() * (segs.length - 1)), 1);
    return segs.join("~");
  }
  const chars = [...text];
  for (let i = 0; i < 5; i++) chars[Math.floor(rnd() * chars.length)] = "*:^~A1 \n"[Math.floor(rnd() * 8)]!;
  return chars.join("");
}

async function survives(text: string): Promise<void> {
  let read: ReturnType<typeof readX12>;
  try {
    read = readX12(text);
  } catch (e) {
    expect(e).toBeInstanceOf(X12Error);
    return;
  }
  writeX12({ interchanges: acknowledge(read, { control: 1 }) });
  try {
    await x12ToFhir(read);
  } catch (e) {
    if (!(e instanceof X12Error)) throw e;
  }
}

describe("damaged fixtures give X12Errors or issues, never another exception", () => {
  it.each(fixtureNames())("%s", async (name) => {
    const text = fixture(name);
    for (let seed = 1; seed <= 60; seed++) await survives(damaged(text, seed));
  });
});
