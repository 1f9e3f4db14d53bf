// A small MLLP client for tests and the benchmark: sends framed messages over loopback and
// hands back the replies in arrival order.
import net from "node:net";
import { frame, MllpDecoder } from "../../src/listeners/mllp/framing";

export class MllpClient {
  private readonly decoder = new MllpDecoder(64 * 1024 * 1024);
  private readonly replies: string[] = [];
  private readonly waiters: { resolve: (reply: string) => void; reject: (error: Error) => void }[] = [];
  private closedError: Error | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on("data", (data: Buffer) => {
      for (const event of this.decoder.push(data)) {
        if (event.kind !== "frame") continue;
        const reply = event.payload.toString("utf8");
        const waiter = this.waiters.shift();
        if (waiter) waiter.resolve(reply);
        else this.replies.push(reply);
      }
    });
    const fail = (error: Error) => {
      this.closedError = error;
      for (const waiter of this.waiters.splice(0)) waiter.reject(error);
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("connection closed")));
  }

  static connect(port: number, host = "127.0.0.1"): Promise<MllpClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host }, () => {
        socket.off("error", reject);
        resolve(new MllpClient(socket));
      });
      socket.once("error", reject);
    });
  }

  /** Sends one message (text with \r segment ends) and waits for its reply. */
  async send(message: string, timeoutMs = 30_000): Promise<string> {
    this.write(frame(Buffer.from(message, "utf8")));
    return this.nextReply(timeoutMs);
  }

  /** Writes bytes as they are: for framing tests (several frames, split frames, noise). */
  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  nextReply(timeoutMs = 30_000): Promise<string> {
    const queued = this.replies.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new Error(`no MLLP reply within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        resolve: (reply: string) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.waiters.push(waiter);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** MSA-1 and MSA-2 of an ACK. */
export function msa(ack: string): { code: string; controlId: string; text: string } {
  const segment = ack.split("\r").find((s) => s.startsWith("MSA")) ?? "";
  const [, code = "", controlId = "", text = ""] = segment.split(segment.charAt(3) || "|");
  return { code, controlId, text };
}
