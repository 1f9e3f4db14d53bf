// How `npm start` stops on SIGINT/SIGTERM (against a fake process): it takes the signals over,
// stops the runtime once, and exits with how that went.
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { stopOnSignals } from "../../../scripts/lib/stop-on-signals";

class FakeProcess extends EventEmitter {
  exits: number[] = [];
  exit(code: number): never {
    this.exits.push(code);
    return undefined as never;
  }
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe("stopOnSignals", () => {
  it("takes the signals over from earlier listeners, stops the runtime once and exits 0", async () => {
    const proc = new FakeProcess();
    const earlier: string[] = [];
    proc.on("SIGINT", () => earlier.push("SIGINT"));
    proc.on("SIGTERM", () => earlier.push("SIGTERM"));
    let stops = 0;
    stopOnSignals({ stop: async () => void stops++ }, { proc, log: () => {} });
    proc.emit("SIGTERM", "SIGTERM");
    await settle();
    expect({ earlier, stops, exits: proc.exits }).toEqual({ earlier: [], stops: 1, exits: [0] });
  });

  it("exits 1 when stopping fails", async () => {
    const proc = new FakeProcess();
    stopOnSignals({ stop: () => Promise.reject(new Error("dispose failed")) }, { proc, log: () => {} });
    proc.emit("SIGINT", "SIGINT");
    await settle();
    expect(proc.exits).toEqual([1]);
  });

  it("ignores a second signal while the first stop runs (exiting then could orphan workerd)", async () => {
    const proc = new FakeProcess();
    let stops = 0;
    let finish: () => void = () => {};
    const stop = () =>
      new Promise<void>((resolve) => {
        stops++;
        finish = resolve;
      });
    stopOnSignals({ stop }, { proc, log: () => {} });
    proc.emit("SIGINT", "SIGINT");
    proc.emit("SIGTERM", "SIGTERM");
    await settle();
    expect({ stops, exits: proc.exits }).toEqual({ stops: 1, exits: [] });
    finish();
    await settle();
    expect(proc.exits).toEqual([0]);
  });
});
