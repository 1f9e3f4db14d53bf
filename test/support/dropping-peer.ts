// A DICOMweb peer that drops STOWs midway: it answers a GET (a QIDO query) with an empty
// list, and resets the connection of a POST after reading 1 KiB of it. Used in Node tests
// and, through test/setup/standards-servers.ts, in worker tests.
import type { Socket } from "node:net";

export function droppingPeer(socket: Socket): void {
  let got = 0;
  socket.on("data", (chunk: Buffer) => {
    if (got === 0 && chunk.subarray(0, 4).toString() === "GET ") {
      socket.end("HTTP/1.1 200 OK\r\ncontent-type: application/dicom+json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n[]");
      return;
    }
    got += chunk.length;
    if (got > 1024) socket.resetAndDestroy();
  });
  socket.on("error", () => {});
}
