/**
 * The response body of a list or watch: text is queued as strings (cached JSON, joined at read
 * time), encoded with one shared TextEncoder in large batches, and handed out on demand
 * (pull-based, so nothing piles up in the stream's own queue). Fault injection hooks in here:
 * random-sized chunks with delays, stalls, and connection drops delivered after the bytes
 * already "on the wire".
 * @module
 */
import type { Clock, TimerHandle } from "@kinformer/kinformer/cache";
import type { Chunking } from "../faults/cluster_faults.ts";
import type { Rng } from "@kinformer/kinformer/internal";

const encoder = new TextEncoder();
/** Characters joined into one chunk at most. */
const BATCH_CHARS = 256 * 1024;

/** What every channel of a cluster shares. */
export interface ChannelEnv {
  /** Cluster clock (chunk delays). */
  readonly clock: Clock;
  /** Seeded generator for chunk sizes. */
  readonly rng: Rng;
  /** Whether delivery is stalled. */
  readonly stalled: boolean;
  /** Current chunking fault, if any. */
  readonly chunking: Chunking | undefined;
  /** Current drip-feeding of LIST bodies (overrides `chunking` for them), if any. */
  readonly listChunking: Chunking | undefined;
}

/** A simulated network failure, as a client would see it when reading the body. */
export function networkError(what: string): TypeError {
  return new TypeError(`network error: ${what} (simulated by SimulatedCluster)`);
}

/** One response body. */
export class BodyChannel {
  /** The stream to put in the Response. */
  readonly stream: ReadableStream<Uint8Array>;
  readonly #env: ChannelEnv;
  readonly #onDone: () => void;
  #text: string[] = [];
  #head = 0;
  #textChars = 0;
  #pieces: Uint8Array[] = [];
  #pieceBytes = 0;
  #source: (() => string | undefined) | undefined;
  readonly #isList: boolean;
  #state: "open" | "ending" | "failing" | "done" = "open";
  #failure: unknown;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #wake: (() => void) | undefined;
  #delay: { handle: TimerHandle; resolve: () => void } | undefined;
  #shutdown = false;
  #doneCalled = false;

  /**
   * `source`, when given, produces the whole body lazily (a list) and the channel ends when it
   * returns undefined; otherwise text comes from {@linkcode BodyChannel.push} (a watch).
   * `onDone` runs once when the body is finished, failed or cancelled.
   */
  constructor(env: ChannelEnv, onDone: () => void, source?: () => string | undefined) {
    this.#env = env;
    this.#onDone = onDone;
    this.#isList = source !== undefined;
    if (source) {
      this.#source = source;
      this.#state = "ending";
    }
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      pull: (controller) => this.#pull(controller),
      cancel: () => {
        this.#finish();
      },
    }, { highWaterMark: 0 });
  }

  /** True until the body has ended, failed or been cancelled. */
  get open(): boolean {
    return this.#state === "open";
  }

  /** Characters and bytes queued and not yet read. */
  get buffered(): number {
    return this.#textChars + this.#pieceBytes;
  }

  /** Queues text; it is delivered in order, as soon as the reader asks. */
  push(text: string): void {
    if (this.#state !== "open") return;
    this.#text.push(text);
    this.#textChars += text.length;
    this.#poke();
  }

  /** Ends the body cleanly once everything queued has been read. */
  end(): void {
    if (this.#state !== "open") return;
    this.#state = "ending";
    this.#poke();
  }

  /**
   * Fails the body (a dropped connection): the reader gets what was already queued, then
   * `error`. When delivery is stalled, or `immediate`, the queued data is lost.
   */
  fail(error: unknown, immediate = false): void {
    if (this.#state === "done") return;
    if (immediate || this.#env.stalled) {
      this.#state = "done";
      this.#clearDelay();
      try {
        this.#controller.error(error);
      } catch {
        // The stream already errored or closed: nothing left to tell the reader.
      }
      this.#text = [];
      this.#pieces = [];
      this.#finish();
      return;
    }
    if (this.#state === "failing") return;
    this.#state = "failing";
    this.#failure = error;
    this.#poke();
  }

  /** Re-checks stall and queue state (after an un-stall). */
  poke(): void {
    this.#poke();
  }

  /** Cluster shutdown: end after the queued data, ignoring stalls and chunk delays. */
  shutdown(): void {
    this.#shutdown = true;
    this.#clearDelay();
    this.end();
    this.#poke();
  }

  get #done(): boolean {
    return this.#state === "done";
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #finish(): void {
    this.#state = "done";
    this.#clearDelay();
    this.#poke();
    this.#text = [];
    this.#head = 0;
    this.#pieces = [];
    this.#textChars = 0;
    this.#pieceBytes = 0;
    if (!this.#doneCalled) {
      this.#doneCalled = true;
      this.#onDone();
    }
  }

  #clearDelay(): void {
    const d = this.#delay;
    if (d) {
      this.#delay = undefined;
      this.#env.clock.clearTimeout(d.handle);
      d.resolve();
    }
  }

  #sleep(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #takeText(): string {
    const text = this.#text;
    if (this.#head >= text.length) return "";
    let end = this.#head;
    let chars = 0;
    while (end < text.length && chars < BATCH_CHARS) chars += text[end++]!.length;
    const out = end - this.#head === 1 ? text[this.#head]! : text.slice(this.#head, end).join("");
    for (let i = this.#head; i < end; i++) text[i] = "";
    this.#head = end;
    this.#textChars -= chars;
    if (this.#head === text.length) {
      this.#text = [];
      this.#head = 0;
    } else if (this.#head > 4096 && this.#head * 2 > text.length) {
      this.#text = text.slice(this.#head);
      this.#head = 0;
    }
    return out;
  }

  /** The chunking fault for this body: lists may be drip-fed on their own. */
  get #chunking(): Chunking | undefined {
    return (this.#isList ? this.#env.listChunking : undefined) ?? this.#env.chunking;
  }

  async #pull(c: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    for (;;) {
      if (this.#state === "done") return;
      if (this.#env.stalled && !this.#shutdown) {
        await this.#sleep();
        continue;
      }
      if (this.#pieces.length > 0) {
        const delayMs = this.#chunking?.delayMs ?? 0;
        if (delayMs > 0 && !this.#shutdown) {
          await new Promise<void>((resolve) => {
            const handle = this.#env.clock.setTimeout(() => {
              this.#delay = undefined;
              resolve();
            }, delayMs);
            this.#delay = { handle, resolve };
          });
          if (this.#done) return;
          if (this.#env.stalled && !this.#shutdown) continue;
        }
        const piece = this.#pieces.shift()!;
        this.#pieceBytes -= piece.byteLength;
        c.enqueue(piece);
        return;
      }
      let text = this.#takeText();
      if (text === "" && this.#source) {
        const next = this.#source();
        if (next === undefined) this.#source = undefined;
        else text = next;
      }
      if (text !== "") {
        const bytes = encoder.encode(text);
        const chunking = this.#chunking;
        if (chunking === undefined || this.#shutdown) {
          c.enqueue(bytes);
          return;
        }
        for (let at = 0; at < bytes.byteLength;) {
          const size = Math.min(
            this.#env.rng.between(1, chunking.maxChunkBytes),
            bytes.byteLength - at,
          );
          this.#pieces.push(bytes.subarray(at, at + size));
          at += size;
        }
        this.#pieceBytes += bytes.byteLength;
        continue;
      }
      if (this.#source) continue;
      if (this.#state === "ending") {
        c.close();
        this.#finish();
        return;
      }
      if (this.#state === "failing") {
        c.error(this.#failure);
        this.#finish();
        return;
      }
      await this.#sleep();
    }
  }
}
