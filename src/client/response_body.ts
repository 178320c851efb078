/**
 * Reading response bodies: text with a byte limit and progress hooks, JSON objects, Status
 * answers, snippets for error messages, and the continue-token peeker of pipelined paging.
 * Internal.
 * @module
 */
import {
  BODY_SNIPPET_LENGTH,
  KubeApiError,
  type KubeApiErrorOptions,
  KubeNetworkError,
} from "./errors.ts";
import { parseRetryAfter } from "./http.ts";
import { isStatus, type KubeList, type KubeObjectLike, type Status } from "./types.ts";
import { describeValue, isRecord, truncate } from "../util/values.ts";
import { onAbort } from "../util/abort.ts";

/** The most of an error body read (the rest is cancelled). */
const ERROR_BODY_LIMIT = 64 * 1024;

/** The decoded Status when `text` is a JSON object with `kind: "Status"`. */
function parseStatus(text: string): Status | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined; // Not JSON: the caller keeps a snippet of the text instead.
  }
  return isStatus(parsed) ? parsed : undefined;
}

/** The first {@linkcode BODY_SNIPPET_LENGTH} characters, never ending on half a surrogate pair. */
export function snippet(text: string): string {
  return truncate(text, BODY_SNIPPET_LENGTH);
}

/**
 * Looks at the head of a list body for `metadata.continue` (the API server writes `metadata`
 * before `items`) and hands it over once; returns true when done looking.
 */
export function continueTokenPeeker(
  onContinue: (token: string) => void,
): (head: string) => boolean {
  return (head) => {
    const items = head.indexOf('"items"');
    const region = items < 0 ? head : head.slice(0, items);
    const m = /"continue"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(region);
    if (m !== null) {
      onContinue(JSON.parse(`"${m[1]}"`) as string);
      return true;
    }
    // Past `items` (or 64 KiB of head) without the token: give up, read on sequentially.
    return items >= 0 || head.length > 65_536;
  };
}

/**
 * Reads a body as text, at most `maxBytes` (the rest is cancelled). An abort of `signal`
 * cancels the body and rethrows the signal's reason, even when the stream ignores the signal.
 * `hooks.peek` is shown the text so far after each chunk until it returns true; `hooks.onProgress`
 * hears of every chunk.
 */
export async function readText(
  response: Response,
  signal: AbortSignal | undefined,
  maxBytes: number,
  hooks: ReadTextHooks = {},
): Promise<string> {
  const chunks = await readChunks(response, signal, maxBytes, hooks);
  const decoder = new TextDecoder();
  const parts: string[] = [];
  for (const chunk of chunks) parts.push(decoder.decode(chunk, { stream: true }));
  parts.push(decoder.decode());
  return parts.join("");
}

/**
 * Reads a whole body as bytes (one array), as {@linkcode readText} reads text: a list page is
 * cut into items on its bytes, so no page-sized string is ever made (see `list_body.ts`).
 */
export async function readBytes(
  response: Response,
  signal: AbortSignal | undefined,
  hooks: ReadTextHooks = {},
): Promise<Uint8Array> {
  const chunks = await readChunks(response, signal, Infinity, hooks);
  if (chunks.length === 1) return chunks[0]!;
  let size = 0;
  for (const chunk of chunks) size += chunk.byteLength;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** The chunks of a body, at most `maxBytes` of them (see {@linkcode readText}). */
async function readChunks(
  response: Response,
  signal: AbortSignal | undefined,
  maxBytes: number,
  hooks: ReadTextHooks,
): Promise<Uint8Array[]> {
  let peek = hooks.peek;
  const onProgress = hooks.onProgress;
  const body = response.body;
  if (body === null) return [];
  if (signal?.aborted) {
    cancelQuietly(body.cancel(signal.reason));
    throw signal.reason;
  }
  const reader = body.getReader();
  const release = onAbort(signal, () => cancelQuietly(reader.cancel(signal?.reason)));
  const chunks: Uint8Array[] = [];
  let received = 0;
  let finished = false;
  /** The text so far, kept (and decoded) only while `peek` still looks. */
  let head = "";
  const headDecoder = peek === undefined ? undefined : new TextDecoder();
  try {
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw error;
      }
      if (signal?.aborted) throw signal.reason;
      if (chunk.done) {
        finished = true;
        break;
      }
      const room = maxBytes - received;
      received += chunk.value.byteLength;
      onProgress?.(received);
      if (chunk.value.byteLength >= room) {
        chunks.push(chunk.value.subarray(0, room));
        break;
      }
      chunks.push(chunk.value);
      if (peek !== undefined) {
        head += headDecoder!.decode(chunk.value, { stream: true });
        if (peek(head)) {
          peek = undefined;
          head = "";
        }
      }
    }
    return chunks;
  } finally {
    release();
    if (!finished) cancelQuietly(reader.cancel());
    reader.releaseLock();
  }
}

/** What {@linkcode readText} tells while it reads. */
export interface ReadTextHooks {
  /** Shown the text so far after each chunk until it returns true. */
  peek?: ((head: string) => boolean) | undefined;
  /** Called after each chunk with the bytes received so far. */
  onProgress?: ((receivedBytes: number) => void) | undefined;
}

/** Reads a 2xx body as a JSON object; a failed read is a {@linkcode KubeNetworkError}. */
export async function readJsonObject(
  response: Response,
  request: string,
  signal: AbortSignal | undefined,
  reading?: ReadTextHooks,
): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readText(response, signal, Infinity, reading);
  } catch (error) {
    throw readFailure(error, request, signal);
  }
  return parseJsonObject(text, request, response.status);
}

/**
 * What a failed body read is: the signal's reason after an abort, else a
 * {@linkcode KubeNetworkError} naming the request.
 */
export function readFailure(error: unknown, request: string, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  return new KubeNetworkError(`${request} (reading the body)`, error);
}

/**
 * A 2xx body's text as a JSON object: text that is not JSON, or JSON that is not an object,
 * is a `TypeError` naming the request and quoting the head of the text.
 */
export function parseJsonObject(
  text: string,
  request: string,
  status: number,
): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new TypeError(
      `${request}: answer is not JSON (status ${status}): ${JSON.stringify(snippet(text))}`,
      { cause: error },
    );
  }
  if (!isRecord(parsed)) {
    throw new TypeError(
      `${request}: answer is not a JSON object: ${JSON.stringify(snippet(text))}`,
    );
  }
  return parsed;
}

/** Releases the body of a response nobody will read (it arrived after an abort). */
export function discardBody(response: Response): void {
  if (response.body !== null && !response.bodyUsed) cancelQuietly(response.body.cancel());
}

/**
 * Cancelling a body we are discarding can reject (an errored stream rejects with its stored
 * error); that error was already surfaced, or belongs to a body nobody reads.
 */
function cancelQuietly(promise: Promise<void>): void {
  promise.catch(() => undefined);
}

/**
 * The {@linkcode KubeApiError} of a non-2xx answer: its code, `Retry-After` (relative to `now`),
 * and the decoded `Status`, or a snippet of a body that is not one. A body that fails mid-read
 * still gives the error, with the failure as its cause; an abort rethrows the signal's reason.
 */
export async function apiErrorOf(
  response: Response,
  request: string,
  signal: AbortSignal | undefined,
  now: number,
): Promise<KubeApiError> {
  const options: KubeApiErrorOptions = { code: response.status, request };
  const retryAfter = parseRetryAfter(response.headers.get("retry-after"), now);
  if (retryAfter !== undefined) options.retryAfterSeconds = retryAfter;
  let text: string;
  try {
    text = await readText(response, signal, ERROR_BODY_LIMIT);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    // The status line is the news; the failed body read is kept as the cause.
    options.cause = error;
    return new KubeApiError(options);
  }
  const status = parseStatus(text);
  if (status !== undefined) options.status = status;
  else options.bodySnippet = snippet(text);
  return new KubeApiError(options);
}

/**
 * A list answer as a `KubeList`: missing `items` or `metadata` become `[]` and `{}`; items that
 * are not an array are a `TypeError`. Internal.
 */
export function listOf<T extends KubeObjectLike>(
  body: Record<string, unknown>,
  path: string,
): KubeList<T> {
  const list = body as unknown as KubeList<T>;
  if (list.metadata === undefined || list.metadata === null) list.metadata = {};
  if (list.items === undefined || list.items === null) list.items = [];
  if (!Array.isArray(list.items)) {
    throw new TypeError(
      `GET ${path}: list answer has non-array items: ${describeValue(list.items)}`,
    );
  }
  return list;
}
