// The outbound guard as a pure module: every spelling of a non-public destination is
// refused under the default policy, public ones pass, and OUTBOUND_ALLOW opens exactly
// what it lists.
import { describe, expect, it } from "vitest";
import { parseIPv4, parseIPv6 } from "../../../src/platform/outbound/ip";
import { checkHost, checkUrl, PUBLIC_ONLY, parseOutboundAllow, withAllowedOrigin } from "../../../src/platform/outbound/policy";

const refusedUrl = (url: string, policy = PUBLIC_ONLY) => !checkUrl(url, policy).ok;
const refusedHost = (host: string, port = 2575, policy = PUBLIC_ONLY) => !checkHost(host, port, policy).ok;
const allow = (text: string) => parseOutboundAllow(text).policy;

describe("IP literal parsing", () => {
  it("reads every inet_aton spelling of IPv4", () => {
    for (const s of ["127.0.0.1", "127.1", "127.0.1", "2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1", "017700000001", "127.0.0.1."]) {
      expect(parseIPv4(s), s).toBe(0x7f000001);
    }
    expect(parseIPv4("0")).toBe(0);
    for (const s of ["256.0.0.1", "1.2.3.4.5", "1..2.3", "08.1.1.1", "4294967296", "1.2.3.256", "abc", ""]) expect(parseIPv4(s), s).toBeUndefined();
  });

  it("reads IPv6 with compression, embedded IPv4 and zones", () => {
    expect(parseIPv6("::1")).toEqual([...new Array(15).fill(0), 1]);
    expect(parseIPv6("::ffff:127.0.0.1")).toEqual(parseIPv6("::ffff:7f00:1"));
    expect(parseIPv6("fe80::1%eth0")).toEqual(parseIPv6("fe80::1"));
    for (const s of ["1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "::127.1", "g::1", "1.2.3.4"]) expect(parseIPv6(s), s).toBeUndefined();
  });
});

describe("the default policy (no OUTBOUND_ALLOW)", () => {
  it("refuses loopback in every spelling, over HTTP and TCP", () => {
    const hosts = ["127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.255.255.254", "[::1]", "[0:0:0:0:0:0:0:1]", "0.0.0.0", "0", "[::]"];
    for (const h of hosts) {
      expect(refusedUrl(`http://${h}/`), h).toBe(true);
      expect(refusedHost(h), h).toBe(true);
    }
  });

  it("refuses metadata, private, link-local, CGNAT, multicast, broadcast and reserved IPv4", () => {
    for (const h of ["169.254.169.254", "100.100.100.200", "100.64.0.1", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "224.0.0.1", "255.255.255.255", "240.0.0.1", "198.18.0.1", "192.0.2.1", "0.1.2.3"]) {
      expect(refusedUrl(`https://${h}/`), h).toBe(true);
    }
    // Just outside the ranges.
    for (const h of ["172.32.0.1", "100.128.0.1", "169.255.0.1", "8.8.8.8", "1.1.1.1"]) expect(refusedUrl(`https://${h}/`), h).toBe(false);
  });

  it("refuses private, link-local and IPv4-embedding IPv6 forms", () => {
    const hosts = [
      "fd00::1", "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1",
      "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:169.254.169.254", "::ffff:a00:1", "::127.0.0.1", "::ffff:0:7f00:1",
      "64:ff9b::a9fe:a9fe", "64:ff9b::127.0.0.1", "64:ff9b:1::1", "2002:7f00:1::", "2002:a9fe:a9fe::1",
      "2001:db8::1", "2001::1", "100::1", "::2",
    ];
    for (const h of hosts) {
      expect(refusedUrl(`http://[${h}]/`), h).toBe(true);
      expect(refusedHost(h), h).toBe(true);
    }
    for (const h of ["2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]) expect(refusedUrl(`http://[${h}]/`), h).toBe(false);
  });

  it("refuses local and metadata host names, but not public ones", () => {
    for (const h of ["localhost", "LOCALHOST.", "api.localhost", "metadata.google.internal", "metadata", "anything.internal", "printer.local", "intranet", "instance-data"]) {
      expect(refusedUrl(`http://${h}/x`), h).toBe(true);
      expect(refusedHost(h), h).toBe(true);
    }
    for (const h of ["ehr.example.org", "llm.example.test", "xn--bcher-kva.example"]) expect(refusedUrl(`https://${h}/`), h).toBe(false);
  });

  it("refuses non-HTTP schemes and unparsable destinations", () => {
    for (const u of ["file:///etc/passwd", "ftp://example.org/", "gopher://example.org/", "data:text/plain,x", "javascript:alert(1)", "not a url"]) {
      expect(refusedUrl(u), u).toBe(true);
    }
    for (const h of ["999.1.1.1", "a b", "", "exa mple.org", "-bad.example.org", "1.2.3.09"]) expect(refusedHost(h), h).toBe(true);
  });

  it("says why, and how to allow it", () => {
    const v = checkUrl("http://169.254.169.254/latest/meta-data/", PUBLIC_ONLY);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.reason).toMatch(/link-local.*OUTBOUND_ALLOW/);
  });
});

describe("OUTBOUND_ALLOW", () => {
  it("opens the CIDRs, addresses and names it lists, and nothing else", () => {
    const p = allow("10.1.0.0/16, 192.168.5.7 ehr.hospital.internal,*.lab.internal fd00:1::/32");
    expect(refusedUrl("https://10.1.2.3/fhir", p)).toBe(false);
    expect(refusedUrl("https://10.2.0.1/fhir", p)).toBe(true);
    expect(refusedUrl("https://192.168.5.7/", p)).toBe(false);
    expect(refusedUrl("https://192.168.5.8/", p)).toBe(true);
    expect(refusedUrl("https://ehr.hospital.internal/", p)).toBe(false);
    expect(refusedUrl("https://x.ehr.hospital.internal/", p)).toBe(true);
    expect(refusedUrl("https://ris.lab.internal/", p)).toBe(false);
    expect(refusedUrl("https://lab.internal/", p)).toBe(true);
    expect(refusedUrl("http://[fd00:1::5]/", p)).toBe(false);
    expect(refusedUrl("http://[fd00:2::5]/", p)).toBe(true);
    // The allow-list never opens metadata or loopback it does not name.
    expect(refusedUrl("http://169.254.169.254/", p)).toBe(true);
    expect(refusedUrl("http://metadata.google.internal/", p)).toBe(true);
    // Nor other schemes.
    expect(refusedUrl("ftp://10.1.2.3/", p)).toBe(true);
  });

  it("restricts to a port when one is given", () => {
    const p = allow("10.1.2.3:443, [fd00::/8]:2575, mllp.hospital.internal:6661, 127.0.0.0/8:8080");
    expect(refusedUrl("https://10.1.2.3/", p)).toBe(false);
    expect(refusedUrl("http://10.1.2.3/", p)).toBe(true);
    expect(refusedUrl("https://10.1.2.3:8443/", p)).toBe(true);
    expect(refusedHost("fd00::9", 2575, p)).toBe(false);
    expect(refusedHost("fd00::9", 22, p)).toBe(true);
    expect(refusedHost("mllp.hospital.internal", 6661, p)).toBe(false);
    expect(refusedHost("mllp.hospital.internal", 6662, p)).toBe(true);
    expect(refusedUrl("http://127.1:8080/", p)).toBe(false);
    expect(refusedUrl("http://127.1:8081/", p)).toBe(true);
  });

  it("matches the address, not its spelling: an allowed 127.0.0.0/8 covers 2130706433 and ::ffff:127.0.0.1 only as written", () => {
    const p = allow("127.0.0.0/8");
    expect(refusedHost("2130706433", 1, p)).toBe(false);
    expect(refusedUrl("http://0x7f000001/", p)).toBe(false);
    // An IPv6 spelling is another address family: it needs its own entry.
    expect(refusedUrl("http://[::ffff:127.0.0.1]/", p)).toBe(true);
    expect(refusedUrl("http://[::ffff:127.0.0.1]/", allow("::ffff:127.0.0.0/104"))).toBe(false);
  });

  it("reports malformed entries and lets them allow nothing", () => {
    const { policy, invalid } = parseOutboundAllow("10.0.0.0/33, 10.0.0.0/x, host:99999, bad_entry!, *.ok.internal");
    expect(invalid).toEqual(["10.0.0.0/33", "10.0.0.0/x", "host:99999", "bad_entry!"]);
    expect(policy.allow).toHaveLength(1);
    expect(refusedUrl("http://10.0.0.1/", policy)).toBe(true);
  });

  it("adds one origin for the deployment's own model endpoint", () => {
    const p = withAllowedOrigin(PUBLIC_ONLY, "http://127.0.0.1:11434/v1");
    expect(refusedUrl("http://127.0.0.1:11434/v1/chat/completions", p)).toBe(false);
    expect(refusedUrl("http://127.0.0.1:11435/", p)).toBe(true);
    expect(refusedUrl("http://[::1]:11434/", withAllowedOrigin(PUBLIC_ONLY, "http://[::1]:11434/v1"))).toBe(false);
    expect(refusedUrl("http://localhost/", withAllowedOrigin(PUBLIC_ONLY, "http://localhost/v1"))).toBe(false);
    expect(refusedUrl("https://localhost/", withAllowedOrigin(PUBLIC_ONLY, "http://localhost/v1"))).toBe(true);
  });
});
