// Fixtures of test/fixtures/x12 (our own writing) and small helpers for the X12 tests.
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { X12Error } from "../../../../src/standards/x12/errors";

const DIR = path.resolve(import.meta.dirname, "../../../fixtures/x12");

export const fixture = (name: string): string => fs.readFileSync(path.join(DIR, name), "utf8");
export const fixtureNames = (): string[] => fs.readdirSync(DIR).filter((n) => n.endsWith(".x12")).sort();

/** The X12Error `f` throws; fails the test when it throws anything else or nothing. */
export function x12Error(f: () => unknown): X12Error {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(X12Error);
    return e as X12Error;
  }
  throw new Error("expected an X12Error");
}

/** Issues as compact tuples for exact comparisons. */
export const brief = (issues: X12Error[]) => issues.map((e) => [e.code, e.segmentId, e.element, e.loop, e.positionInSet]);

/** A one-set interchange around `body` lines (segment terminator "~", no SE count given: it is computed). */
export function wrap(st: string, body: string[], version: string, opts: { gs01?: string; st03?: boolean } = {}): string {
  const segs = [`ST*${st}*0001${opts.st03 === false ? "" : `*${version}`}`, ...body];
  return [
    "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *260101*1200*^*00501*000000001*0*T*:",
    `GS*${opts.gs01 ?? "HC"}*SENDER*RECEIVER*20260101*1200*1*X*${version}`,
    ...segs,
    `SE*${segs.length + 1}*0001`,
    "GE*1*1",
    "IEA*1*000000001",
  ].join("~\n").concat("~\n");
}
