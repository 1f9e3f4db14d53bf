// A document's bytes as MHD describes them: Binary.data is base64, attachment.size counts the
// raw bytes and attachment.hash is their SHA-1, base64 (ITI-65 §2:3.65.4.1.2).

/** Base64 of bytes, in slices: spreading a whole large document into fromCharCode overflows the stack. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export const fromBase64 = (base64: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(base64), (ch) => ch.charCodeAt(0));

/** The raw bytes' size and base64 SHA-1, as attachment.size and attachment.hash describe them. */
export async function sizeAndHash(data: string | Uint8Array<ArrayBuffer>): Promise<{ size: number; hash: string }> {
  const bytes = typeof data === "string" ? fromBase64(data) : data;
  return { size: bytes.length, hash: toBase64(new Uint8Array(await crypto.subtle.digest("SHA-1", bytes))) };
}
