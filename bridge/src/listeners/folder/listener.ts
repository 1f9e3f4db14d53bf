// The X12 folder listener: practice-management and billing systems on premises drop X12
// files into a folder (the usual hand-off, where a clearinghouse would use SFTP). Every poll
// takes each settled file of the inbox in name order, hands it to the intake (stored in the
// queue before anything else happens), writes the answer (999/TA1) to the outbox as
// <file>.ack and moves the file to the done folder, so a file is taken once.
import { mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Listener, MessageSink } from "../../listener";
import type { Logger } from "../../log";

export interface FolderListenerOptions {
  name: string;
  inbox: string;
  outbox: string;
  done: string;
  pollMs: number;
  /** A file younger than this may still be being written; it waits for the next poll. */
  settleMs: number;
  encoding: BufferEncoding;
  maxFileBytes: number;
}

export function folderListener(options: FolderListenerOptions, protocol: string, intake: MessageSink, log: Logger): Listener {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  async function takeOne(file: string): Promise<void> {
    const from = path.join(options.inbox, file);
    const info = await stat(from);
    if (!info.isFile() || Date.now() - info.mtimeMs < options.settleMs) return;
    const reply =
      info.size > options.maxFileBytes
        ? intake.refuse((await readFile(from)).subarray(0, 4096).toString(options.encoding), `file of ${info.size} bytes exceeds the ${options.maxFileBytes}-byte limit`)
        : await intake.accept((await readFile(from)).toString(options.encoding), `folder:${file}`);
    if (reply) await writeFile(path.join(options.outbox, `${file}.ack`), reply, options.encoding);
    await rename(from, path.join(options.done, file));
  }

  async function poll(): Promise<void> {
    try {
      const files = (await readdir(options.inbox)).filter((f) => !f.startsWith(".")).sort();
      for (const file of files) {
        if (stopped) return;
        await takeOne(file).catch((e: unknown) => log.warn("x12 folder: file not taken", { file, error: e instanceof Error ? e.message : String(e) }));
      }
    } catch (e) {
      log.warn("x12 folder: inbox not readable", { inbox: options.inbox, error: e instanceof Error ? e.message : String(e) });
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = poll().finally(schedule);
    }, options.pollMs);
  };

  return {
    name: options.name,
    kind: "x12-folder",
    protocol,
    async start() {
      for (const dir of [options.inbox, options.outbox, options.done]) await mkdir(dir, { recursive: true });
      running = poll().finally(schedule);
      return { url: `file://${path.resolve(options.inbox)}`, port: null };
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
