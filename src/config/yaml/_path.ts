/**
 * Where the YAML parser is, for its error messages: the chain of keys and sequence indexes from
 * the root. Only keys the caller says are safe (for a kubeconfig: its field names) are ever
 * printed; any other key shows as `<key>`, because in broken input a secret can end up where a
 * key is expected.
 * @module
 */

/** One step of a path: a mapping key or a sequence index, and the path of its parent. */
export interface YamlPath {
  /** Path of the collection this key or index is in; `undefined` at the root. */
  readonly parent: YamlPath | undefined;
  /** Mapping key or sequence index. */
  readonly part: string | number;
}

/** The path of `part` inside `parent`. */
export function childPath(parent: YamlPath | undefined, part: string | number): YamlPath {
  return { parent, part };
}

/** Which mapping keys may be shown in an error (the others show as `<key>`). */
export type ShowKey = (key: string) => boolean;

/**
 * The path as text, e.g. `users[0].user.token`, with keys `showKey` refuses shown as `<key>`;
 * `undefined` at the root.
 */
export function describePath(
  path: YamlPath | undefined,
  showKey: ShowKey,
): string | undefined {
  if (path === undefined) return undefined;
  const parts: (string | number)[] = [];
  for (let p: YamlPath | undefined = path; p !== undefined; p = p.parent) parts.push(p.part);
  let text = "";
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] ?? "";
    if (typeof part === "number") text += `[${part}]`;
    else text += (text === "" ? "" : ".") + (showKey(part) ? part : "<key>");
  }
  return text;
}
