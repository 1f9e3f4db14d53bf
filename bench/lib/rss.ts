// Samples the resident memory (and reads the CPU time) of the workerd process(es) a `wrangler dev` runs:
// every process whose process group is the wrangler's (startWorker spawns it
// detached, so its pid is the group id) and whose name is workerd. Linux /proc only.
import { readFileSync, readdirSync } from "node:fs";

const PAGE_BYTES = 4096;

/** Pids of the workerd processes in process group `pgid`. */
export function workerdPids(pgid: number): number[] {
  return groupPids(pgid, "workerd");
}

/** Pids of the processes in process group `pgid` whose name starts with `name` (any name when absent). */
export function groupPids(pgid: number, name = ""): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so split after ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp === pgid && comm.startsWith(name)) pids.push(Number(entry));
    } catch {
      // the process exited while we looked
    }
  }
  return pids;
}

const TICKS_PER_MS = 100 / 1000; // USER_HZ is 100 on Linux

/** User + system CPU ms from a /proc stat line. */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS;
}

/** CPU time (user + system, ms) `pids` have used so far, all threads (from /proc/<pid>/stat). */
export function cpuMs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += statCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      // exited
    }
  }
  return total;
}

/** CPU ms used so far by each thread of `pids`, keyed "pid/tid" (workerd runs a Worker's isolates on one thread). */
export function threadCpuMs(pids: number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) out.set(`${pid}/${tid}`, statCpuMs(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")));
    } catch {
      // exited
    }
  }
  return out;
}

/** Summed RSS of `pids` in bytes (from /proc/<pid>/statm; a vanished pid counts 0). */
export function rssBytes(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * PAGE_BYTES;
    } catch {
      // exited
    }
  }
  return total;
}

export interface RssWindow {
  /** RSS when the window opened. */
  start: number;
  /** Highest RSS seen while it was open. */
  peak: number;
  samples: number;
}

/** Samples RSS every `intervalMs` until stop() is called; returns the window's figures. */
export function sampleRss(pids: number[], intervalMs = 100): { stop(): RssWindow } {
  const start = rssBytes(pids);
  let peak = start;
  let samples = 1;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pids));
    samples++;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, rssBytes(pids));
      return { start, peak, samples: samples + 1 };
    },
  };
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
