// Which addresses the relay may deliver to. Entries: an IPv4 or IPv6 CIDR (10.0.0.0/8, fd00::/8),
// an address or host name with or without a port (lis.local:2575, 10.1.2.3), or a folder
// (file:///var/spool/out, which allows it and everything under it). A host name is resolved and
// its address must be allowed, unless the name itself is listed. Default: loopback and the
// private ranges, no folders.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const DEFAULT_ALLOW = ["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "localhost"];

type Entry = { kind: "cidr"; bytes: number[]; bits: number; v6: boolean } | { kind: "host"; host: string; port: number | null } | { kind: "folder"; dir: string };

export class AllowList {
  private readonly entries: Entry[];

  constructor(readonly specs: readonly string[]) {
    this.entries = specs.map(parseEntry);
  }

  /** null when `address` may be reached, else why not. */
  async refusal(address: string): Promise<string | null> {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return `${address} is not a URL`;
    }
    if (url.protocol === "file:") {
      const dir = path.resolve(fileURLToPath(url));
      const ok = this.entries.some((e) => e.kind === "folder" && (dir === e.dir || dir.startsWith(e.dir + path.sep)));
      return ok ? null : `${dir} is not a folder on the relay's allow-list`;
    }
    const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : url.protocol === "http:" ? 80 : null;
    if (this.entries.some((e) => e.kind === "host" && e.host === host && (e.port === null || e.port === port))) return null;
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await lookup(host, { all: true })).map((a) => a.address);
      } catch (e) {
        return `${host} does not resolve: ${e instanceof Error ? e.message : String(e)}`;
      }
    }
    const refused = addresses.filter((a) => !this.allowsIp(a, port));
    return refused.length === 0 ? null : `${host}${port ? `:${port}` : ""} (${refused.join(", ")}) is not on the relay's allow-list`;
  }

  private allowsIp(ip: string, port: number | null): boolean {
    const bytes = ipBytes(ip);
    return this.entries.some((e) => {
      if (e.kind === "host") return e.host === ip && (e.port === null || e.port === port);
      if (e.kind !== "cidr" || !bytes || (bytes.length === 16) !== e.v6) return false;
      return inPrefix(bytes, e.bytes, e.bits);
    });
  }
}

function parseEntry(spec: string): Entry {
  const s = spec.trim();
  if (s.startsWith("file://")) return { kind: "folder", dir: path.resolve(fileURLToPath(s)) };
  const cidr = /^(.+)\/(\d{1,3})$/.exec(s);
  if (cidr) {
    const bytes = ipBytes(cidr[1] ?? "");
    const bits = Number(cidr[2]);
    if (!bytes || bits > bytes.length * 8) throw new Error(`relay allow-list: ${s} is not a CIDR`);
    return { kind: "cidr", bytes, bits, v6: bytes.length === 16 };
  }
  const hostPort = /^\[?([^\]]+?)\]?(?::(\d{1,5}))?$/.exec(s);
  if (!hostPort || s === "") throw new Error(`relay allow-list: ${s} is not a CIDR, host[:port] or file:///folder`);
  const host = (hostPort[1] ?? "").toLowerCase();
  // A bare IPv6 address has colons of its own.
  if (isIP(s.replace(/^\[|\]$/g, "")) === 6) return { kind: "host", host: s.replace(/^\[|\]$/g, "").toLowerCase(), port: null };
  return { kind: "host", host, port: hostPort[2] ? Number(hostPort[2]) : null };
}

function ipBytes(ip: string): number[] | undefined {
  const v = isIP(ip);
  if (v === 4) return ip.split(".").map(Number);
  if (v !== 6) return undefined;
  let text = ip.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (v4) {
    tail = (v4[1] ?? "").split(".").map(Number);
    text = `${text.slice(0, -(v4[1] ?? "").length)}0:0`;
  }
  const [head = "", rest] = text.split("::");
  const groups = (g: string) => (g === "" ? [] : g.split(":").map((x) => Number.parseInt(x, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = all.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
  if (v4) bytes.splice(12, 4, ...tail);
  // An IPv4-mapped address is judged as the IPv4 address it maps.
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  return bytes;
}

function inPrefix(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if (((bytes[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}
