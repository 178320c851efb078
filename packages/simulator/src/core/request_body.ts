/**
 * Reading request bodies in the simulated cluster, with the real API server's limits: a body
 * over `maxRequestBodyBytes` is a 413 (kube-apiserver's default limit is 3 MiB), JSON that is
 * not valid or nests deeper than `maxJsonDepth` is a 400, and JSON text nesting deeper than
 * kube-apiserver's decoder allows (10,000 levels, Go's `encoding/json` limit) is a 400 found by
 * scanning the text, before anything is parsed (so an over-deep unknown field cannot be parsed
 * and then pruned away, as it never reaches the real server's pruning).
 * @module
 */
import { unservable } from "./servable_json.ts";
import { badRequest, fail, requestEntityTooLarge } from "./status.ts";
import { messageOf, parseYaml } from "@kinformer/kinformer/internal";

/** Limits on request bodies. */
export interface BodyLimits {
  /** Largest body in bytes. */
  readonly maxRequestBodyBytes: number;
  /** Deepest JSON nesting (the outermost object or array is level 1). */
  readonly maxJsonDepth: number;
}

/** Deepest nesting kube-apiserver's JSON decoder reads (Go's `encoding/json` `maxNestingDepth`). */
export const DECODER_MAX_DEPTH = 10_000;

/**
 * The bracket that opens nesting level `limit + 1` in JSON `text` (string contents skipped),
 * or undefined when the text nests no deeper than `limit`. One pass, no parsing.
 */
export function tooDeepBracket(
  text: string,
  limit: number = DECODER_MAX_DEPTH,
): string | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return text[i];
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return undefined;
}

/**
 * Refuses JSON `text` that nests deeper than kube-apiserver's decoder reads, with its 400:
 * `<prefix>invalid character '{' exceeded max depth` (Go's scanner error; an object body's
 * `prefix` is the serializer's `couldn't get version/kind; json parse error: `).
 */
export function refuseTooDeepJson(text: string, prefix = ""): void {
  const bracket = tooDeepBracket(text);
  if (bracket !== undefined) {
    fail(badRequest(`${prefix}invalid character '${bracket}' exceeded max depth`));
  }
}

/**
 * The body's bytes, or a 413 `KubeApiError` as soon as it exceeds `maxBytes`: a
 * `Content-Length` over the limit is refused before reading, and a body without one is read
 * only up to the limit.
 */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const body = request.body;
  if (body === null) return new Uint8Array(0);
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (length > maxBytes) {
    await body.cancel().catch(() => {
      // The body failed already: there is nothing left to read either way.
    });
    fail(requestEntityTooLarge(maxBytes));
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {
          // As above: the request is refused whatever its body does now.
        });
        fail(requestEntityTooLarge(maxBytes));
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}

/** The body as text (UTF-8), within `maxBytes` (see {@linkcode readBodyBytes}). */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readBodyBytes(request, maxBytes));
}

/** Parses JSON text of a request body: invalid or too deep JSON is a 400 `KubeApiError`. */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  refuseTooDeepJson(text);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    fail(badRequest("the body of the request is not valid JSON"));
  }
  const problem = unservable(value, maxDepth);
  if (problem !== undefined) {
    fail(badRequest(`the JSON of the request body ${problem}`));
  }
  return value;
}

/** Reads and parses a JSON body within `limits` (413 or 400 `KubeApiError`s). */
export async function readJsonBody(request: Request, limits: BodyLimits): Promise<unknown> {
  return parseJsonBody(
    await readBodyText(request, limits.maxRequestBodyBytes),
    limits.maxJsonDepth,
  );
}

/** How {@linkcode parseYamlBody} words its 400s. */
export interface YamlBodyWording {
  /** Named in the parser's errors (`apply configuration`, `request body`). */
  source: string;
  /** Before the parser's message (`error decoding YAML`). */
  syntax: string;
  /** Before what makes the value unservable (`the apply configuration`). */
  subject: string;
}

/**
 * Parses YAML text of a request body (JSON is YAML too): a syntax error, or a value that cannot
 * be served as JSON (too deep), is a 400 `KubeApiError` worded by `wording`. A repeated key is
 * not an error here (the later value wins, as kube-apiserver's non-strict YAML decoding has it):
 * it goes to `onDuplicateKey`, and `Strict` field validation refuses it (see write_body.ts).
 */
export function parseYamlBody(
  text: string,
  maxDepth: number,
  wording: YamlBodyWording,
  onDuplicateKey: (key: string, line: number) => void = () => {},
): unknown {
  refuseTooDeepJson(text);
  let value: unknown;
  try {
    value = parseYaml(text, { source: wording.source, onDuplicateKey });
  } catch (error) {
    fail(badRequest(`${wording.syntax}: ${messageOf(error)}`));
  }
  const problem = unservable(value, maxDepth);
  if (problem !== undefined) fail(badRequest(`${wording.subject} ${problem}`));
  return value;
}
