// Graceful stop of a local runtime (`npm start`, the bench's Miniflare process) on SIGINT/SIGTERM.
type Signal = "SIGINT" | "SIGTERM";

/** The part of `process` this needs (tests pass an EventEmitter). */
export type SignalledProcess = Pick<NodeJS.EventEmitter, "listeners" | "removeListener" | "on"> & { exit(code: number): never };

/**
 * Stops `runtime` on SIGINT or SIGTERM, then exits (1 if stopping failed). Takes both signals
 * over: Miniflare's own listeners would exit at once, killing workerd under a running tick and
 * leaving the bundle behind. Its exit hook stays, so workerd never outlives this process. A
 * second signal is ignored: exiting under Miniflare's dispose could orphan workerd, and the
 * stop is bounded anyway (the runtime waits for a running scheduled handler only so long).
 */
export function stopOnSignals(
  runtime: { stop(): Promise<void> },
  { proc = process, log = console.error }: { proc?: SignalledProcess; log?: (line: string) => void } = {},
): void {
  // Status lines go to stderr by default, apart from the request lines Miniflare writes to stdout.
  let stopping = false;
  const stop = (signal: Signal) => {
    if (stopping) return;
    stopping = true;
    log(`Stopping (${signal})…`);
    runtime.stop().then(
      () => {
        log("Stopped: the cron ticker and Miniflare are shut down.");
        proc.exit(0);
      },
      (err) => {
        log(`Stopping failed: ${err instanceof Error ? err.stack : err}`);
        proc.exit(1);
      },
    );
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    // One by one, not removeAllListeners: tsx's own listener (which `listeners` does not show)
    // tells its parent process that the signal arrived; without it tsx would SIGKILL this one.
    for (const listener of proc.listeners(signal)) proc.removeListener(signal, listener as (...args: unknown[]) => void);
    proc.on(signal, stop);
  }
}
