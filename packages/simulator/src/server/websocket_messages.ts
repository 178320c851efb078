/**
 * From a watch body to WebSocket messages (no runtime APIs here): what every way of serving the
 * simulated cluster over a WebSocket shares. The real API server writes one message per watch
 * event, the event's JSON and its newline; so a body's lines become messages, each with its
 * newline.
 * @module
 */

import { onAbort } from "@kinformer/kinformer/internal";

const NEWLINE = 0x0a;

/**
 * Reads `body` and hands its messages to `send` as they form. A message may come in fragments
 * (`fin` false until its last one): a chunk that ends mid-line is sent at once as a fragment, so
 * an adapter that writes frames can show a client the body's chunking (the chunking fault); an
 * adapter that sends whole messages joins fragments until `fin`. `send` may return a promise
 * to hold the reading (back-pressure). Resolves `"end"` when the body ended (bytes after the
 * last newline are a last message), `"error"` when it failed (a simulated dropped connection;
 * an unfinished message is dropped), `"cancelled"` when `signal` aborted.
 */
export async function readMessages(
  body: ReadableStream<Uint8Array>,
  send: (bytes: Uint8Array, fin: boolean) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<"end" | "error" | "cancelled"> {
  const reader = body.getReader();
  const stopListening = onAbort(signal, () => {
    reader.cancel(signal?.reason).catch(() => {
      // The body already failed: nothing more to read either way.
    });
  });
  /** Whether the message being sent has had a fragment already. */
  let open = false;
  try {
    for (;;) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch {
        return signal?.aborted ? "cancelled" : "error";
      }
      if (signal?.aborted) return "cancelled";
      if (result.done) {
        if (open) await send(new Uint8Array(0), true);
        return "end";
      }
      const chunk = result.value;
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(NEWLINE, start);
        if (newline === -1) break;
        await send(chunk.subarray(start, newline + 1), true);
        open = false;
        start = newline + 1;
      }
      if (start < chunk.byteLength) {
        await send(chunk.subarray(start), false);
        open = true;
      }
    }
  } finally {
    stopListening();
    reader.releaseLock();
  }
}

/**
 * {@linkcode readMessages} for adapters that send whole text messages: fragments are joined
 * ({@linkcode MessageJoiner}) and each whole message goes to `send` as text; `send` may return
 * a promise to hold the reading.
 */
export function readTextMessages(
  body: ReadableStream<Uint8Array>,
  send: (text: string) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<"end" | "error" | "cancelled"> {
  const joiner = new MessageJoiner();
  return readMessages(body, (bytes, fin) => {
    const text = joiner.add(bytes, fin);
    return text === undefined ? undefined : send(text);
  }, signal);
}

/** Joins message fragments into whole messages, for adapters that send whole messages. */
export class MessageJoiner {
  #parts: Uint8Array[] = [];
  readonly #decoder = new TextDecoder();

  /** Adds a fragment; returns the whole message as text once `fin`, else undefined. */
  add(bytes: Uint8Array, fin: boolean): string | undefined {
    if (!fin) {
      this.#parts.push(bytes.slice());
      return undefined;
    }
    if (this.#parts.length === 0) return this.#decoder.decode(bytes);
    const parts = [...this.#parts, bytes];
    this.#parts = [];
    const whole = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let at = 0;
    for (const p of parts) {
      whole.set(p, at);
      at += p.byteLength;
    }
    return this.#decoder.decode(whole);
  }
}
