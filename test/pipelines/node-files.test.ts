// The organization's files for nodes (R2 under orgs/<org>/files/): a stream of unknown
// length larger than one part goes up as a multipart upload and reads back byte-equal, keys
// stay inside the org's folder, test mode stores nothing.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FILE_PART_SIZE, nodeFiles } from "../../src/features/pipelines/node-files";

function stream(total: number, chunk = 1024 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(chunk, total - sent);
      controller.enqueue(new Uint8Array(n).map((_, i) => (sent + i) % 251));
      sent += n;
    },
  });
}

describe("node files", () => {
  it("stores a stream of unknown length over two parts and reads it back", async () => {
    const files = nodeFiles(env.BLOBS, "org-a", false);
    const total = FILE_PART_SIZE * 2 + 12345;
    expect(await files.put("dicom/x/1.dcm", stream(total), { contentType: "application/dicom" })).toEqual({ key: "dicom/x/1.dcm", bytes: total, contentType: "application/dicom" });
    const back = await files.get("dicom/x/1.dcm");
    const bytes = new Uint8Array(await new Response(back.body).arrayBuffer());
    expect([back.bytes, back.contentType, bytes.length, bytes[total - 1]]).toEqual([total, "application/dicom", total, (total - 1) % 251]);
    expect(await env.BLOBS.head("orgs/org-a/files/dicom/x/1.dcm")).not.toBeNull();
    const small = await files.put("a.txt", stream(10), { contentType: "text/plain" });
    expect(small.bytes).toBe(10);
  });

  it("peeks at a file's first bytes and size without reading the rest; short and empty files too", async () => {
    const files = nodeFiles(env.BLOBS, "org-peek", false);
    await files.put("big.bin", stream(5000), { contentType: "application/octet-stream" });
    const head = await files.peek("big.bin", 132);
    expect([head.bytes, head.contentType, head.start.length, head.start[131]]).toEqual([5000, "application/octet-stream", 132, 131 % 251]);
    await files.put("short.txt", "hello", { contentType: "text/plain" });
    expect((await files.peek("short.txt", 132)).start).toEqual(new TextEncoder().encode("hello"));
    await files.put("empty.txt", "", { contentType: "text/plain" });
    expect(await files.peek("empty.txt", 132)).toMatchObject({ bytes: 0, start: new Uint8Array(0) });
    await expect(files.peek("missing.bin", 132)).rejects.toMatchObject({ code: "FILE_NOT_FOUND", status: 404 });
  });

  it("records each stored file with its origin, and nothing in test mode", async () => {
    const recorded: unknown[] = [];
    const files = nodeFiles(env.BLOBS, "org-rec", false, async (file, origin) => void recorded.push({ file, origin }));
    await files.put("x.txt", "abc", { contentType: "text/plain", origin: { executionId: "ex1", nodeId: "n1" } });
    expect(recorded).toEqual([{ file: { key: "x.txt", bytes: 3, contentType: "text/plain" }, origin: { executionId: "ex1", nodeId: "n1" } }]);
    await expect(nodeFiles(env.BLOBS, "org-rec", true, async () => void recorded.push("no")).put("y.txt", "abc", { contentType: "text/plain" })).rejects.toMatchObject({ code: "TEST_MODE_WRITE_BLOCKED" });
    expect(recorded).toHaveLength(1);
  });

  it("keeps keys inside the organization's folder and blocks writes in test mode", async () => {
    const files = nodeFiles(env.BLOBS, "org-b", false);
    for (const key of ["../org-a/files/a.txt", "/abs", "a/../../b", "a//b", ""]) await expect(files.put(key, "x", { contentType: "text/plain" })).rejects.toMatchObject({ code: "FILE_KEY_INVALID" });
    await expect(files.get("a.txt")).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
    await expect(nodeFiles(env.BLOBS, "org-b", true).put("a.txt", "x", { contentType: "text/plain" })).rejects.toMatchObject({ code: "TEST_MODE_WRITE_BLOCKED" });
  });
});
