/**
 * Reading request bodies in the simulated cluster, with the real API server's limits: a body
 * over `maxRequestBodyBytes` is a 413 (kube-apiserver's default limit is 3 MiB), JSON that is
 * not valid or nests deeper than `maxJsonDepth` is a 400.
 * @module
 */
import { unservable } from "./servable_json.ts";
import { badRequest, fail, requestEntityTooLarge } from "./status.ts";
import { parseYaml } from "@kinformer/kinformer/internal";
import { messageOf } from "@kinformer/kinformer/internal";

/** Limits on request bodies. */
export interface BodyLimits {
  /** Largest body in bytes. */
  readonly maxRequestBodyBytes: number;
  /** Deepest JSON nesting (the outermost object or array is level 1). */
  readonly maxJsonDepth: number;
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
 * be served as JSON (too deep), is a 400 `KubeApiError` worded by `wording`.
 */
export function parseYamlBody(text: string, maxDepth: number, wording: YamlBodyWording): unknown {
  let value: unknown;
  try {
    value = parseYaml(text, { source: wording.source });
  } catch (error) {
    fail(badRequest(`${wording.syntax}: ${messageOf(error)}`));
  }
  const problem = unservable(value, maxDepth);
  if (problem !== undefined) fail(badRequest(`${wording.subject} ${problem}`));
  return value;
}
