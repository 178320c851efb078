/**
 * Header lines that must go out one per value (internal). `fetch`'s `Headers` joins repeated
 * headers into one line (`Impersonate-Group: a, b`), which kube-apiserver reads as one value,
 * the group `a, b`. A request carrying {@linkcode HEADER_LINES} lists each line; the Node
 * transport (`createNodeFetch`, also what the Deno and Bun loaders use for such requests) sends
 * them as written, replacing the joined value.
 * @module
 */

/** Where a `Request` carries its header lines, as `[name, value]` pairs in order. */
export const HEADER_LINES: unique symbol = Symbol.for("kinformer.headerLines");

/** One header line: its name and value. */
export type HeaderLine = readonly [name: string, value: string];

/** Marks `request` with `lines` (which its headers also hold, joined). Returns it. */
export function withHeaderLines(request: Request, lines: readonly HeaderLine[]): Request {
  (request as Request & { [HEADER_LINES]?: readonly HeaderLine[] })[HEADER_LINES] = lines;
  return request;
}

/**
 * The header lines of `request` grouped by lower-cased name (each name's values in order), for
 * a transport that can send a name more than once; empty when it carries none.
 */
export function headerLinesOf(request: Request): Map<string, string[]> {
  const lines = (request as Request & { [HEADER_LINES]?: readonly HeaderLine[] })[HEADER_LINES];
  const byName = new Map<string, string[]>();
  for (const [name, value] of lines ?? []) {
    const key = name.toLowerCase();
    const values = byName.get(key);
    if (values === undefined) byName.set(key, [value]);
    else values.push(value);
  }
  return byName;
}

/** Whether `request` carries a header name more than once (which joined headers would change). */
export function hasRepeatedHeaderLines(request: Request): boolean {
  for (const values of headerLinesOf(request).values()) if (values.length > 1) return true;
  return false;
}
