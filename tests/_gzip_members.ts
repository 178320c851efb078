// Test helper: the gzip members of a body, one by one (kube-apiserver 1.37 sends a streaming
// list as many concatenated members). node:zlib's raw inflate reports how many input bytes one
// deflate stream used, which finds where the next member starts; runs on Deno, Bun and Node.
import zlib from "node:zlib";

/** The decoded text of each gzip member of `body`, in order. */
export function gzipMembers(body: Uint8Array): string[] {
  const decoder = new TextDecoder();
  const members: string[] = [];
  let at = 0;
  while (at < body.byteLength) {
    if (body[at] !== 0x1f || body[at + 1] !== 0x8b || body[at + 2] !== 8 || body[at + 3] !== 0) {
      throw new Error(`no gzip member header (without optional fields) at byte ${at}`);
    }
    const { buffer, engine } = zlib.inflateRawSync(body.subarray(at + 10), {
      info: true,
    }) as unknown as { buffer: Uint8Array; engine: { bytesWritten: number } };
    members.push(decoder.decode(buffer));
    at += 10 + engine.bytesWritten + 8; // header, deflate data, CRC-32 and size
  }
  return members;
}
