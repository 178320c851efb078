/**
 * Path helpers for the loaders, on strings only (POSIX and Windows separators), so the
 * portable core needs no `node:path`.
 * @module
 */

/** True for `/x`, `\x`, `C:\x`, `C:/x` and `\\server\share`. */
export function isAbsolutePath(path: string): boolean {
  return /^(?:[\\/]|[A-Za-z]:[\\/])/.test(path);
}

/** The folder of `path` (`.` when it has none). */
export function dirnameOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (cut < 0) return ".";
  if (cut === 0) return path.slice(0, 1);
  if (cut === 2 && /^[A-Za-z]:/.test(path)) return path.slice(0, 3);
  return path.slice(0, cut);
}

/** `path` if absolute, else `path` under `dir`, with the separator `dir` uses. */
export function resolveFrom(dir: string, path: string): string {
  if (isAbsolutePath(path) || dir === "" || dir === ".") return path;
  const sep = dir.includes("\\") && !dir.includes("/") ? "\\" : "/";
  return /[\\/]$/.test(dir) ? dir + path : dir + sep + path;
}
