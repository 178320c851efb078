/**
 * The continue token of a paged LIST, as kube-apiserver makes and checks it: base64url (no
 * padding) of the JSON `{"v":"meta.k8s.io/v1","rv":<snapshot resourceVersion>,"start":<key>}`.
 * Decoding follows the API server's `DecodeContinue`, Go JSON rules included (`rv` must be an
 * int64, so `1.5` or `"4"` is refused), and every refusal is the API server's 400
 * `invalid continue token: continue key is not valid...`.
 * @module
 */
import { base64Utf8, isRecord } from "@kinformer/kinformer/internal";
import { badRequest, fail } from "../../core/status.ts";

/** What a continue token holds. */
export interface ContinueToken {
  /** The snapshot's resourceVersion; negative: continue at the latest (an inconsistent continue). */
  readonly rv: number;
  /** The key the next page starts at (inclusive). */
  readonly start: string;
}

const ENCODED_VERSION = "meta.k8s.io/v1";
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

function base64UrlEncode(text: string): string {
  return base64Utf8(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Encodes a continue token: the snapshot's resourceVersion and the key to start at. */
export function encodeContinue(rv: number, start: string): string {
  return base64UrlEncode(JSON.stringify({ v: ENCODED_VERSION, rv, start }));
}

/** The 400 of a token that is not valid, worded as kube-apiserver's. */
function invalidToken(why?: string): never {
  const reason = why === undefined ? "" : `: ${why}`;
  fail(badRequest(`invalid continue token: continue key is not valid${reason}`));
}

/** Go's `base64.RawURLEncoding.DecodeString`: the bytes, or the offset of the first bad byte. */
function decodeRawUrlBase64(token: string): Uint8Array | number {
  const out: number[] = [];
  let bits = 0;
  let count = 0;
  for (let i = 0; i < token.length; i++) {
    const v = BASE64URL.indexOf(token[i]!);
    if (v < 0) return i;
    bits = (bits << 6) | v;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push((bits >> count) & 0xff);
    }
  }
  // A lone trailing character (4n+1 long) carries fewer than 8 bits: Go reports its offset.
  if (token.length % 4 === 1) return token.length - 1;
  return Uint8Array.from(out);
}

/** How Go quotes a byte in a JSON syntax error: `'x'`, or an escape for the unprintable. */
function goQuoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const code = c.codePointAt(0)!;
  if (code >= 0x20 && code < 0x7f) return `'${c}'`;
  return JSON.stringify(c);
}

/** Go's name of a JSON value's type in an unmarshal error. */
function goJsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (isRecord(value)) return "object";
  return typeof value === "boolean" ? "bool" : typeof value;
}

/** Go's `json.Unmarshal` into the token struct: its fields, or the error text. */
function unmarshalToken(text: string): { v: string; rv: number; start: string } | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const first = text.trimStart()[0];
    if (first === undefined) return "unexpected end of JSON input";
    if (!'{["-0123456789tfn'.includes(first)) {
      return `invalid character ${goQuoteChar(first)} looking for beginning of value`;
    }
    return "unexpected end of JSON input";
  }
  const token = { v: "", rv: 0, start: "" };
  if (parsed === null) return token;
  const literal = fractionalRv(text);
  if (literal !== undefined) {
    return `json: cannot unmarshal number ${literal} into Go struct field continueToken.rv of type int64`;
  }
  if (!isRecord(parsed)) {
    return `json: cannot unmarshal ${
      goJsonType(parsed)
    } into Go value of type storage.continueToken`;
  }
  const field = (name: string, type: string, value: unknown) =>
    `json: cannot unmarshal ${value} into Go struct field continueToken.${name} of type ${type}`;
  // Go matches field names exactly or case-insensitively; a later key overrides an earlier one.
  for (const [key, value] of Object.entries(parsed)) {
    const name = key.toLowerCase();
    if (value === null || (name !== "v" && name !== "rv" && name !== "start")) continue;
    if (name === "rv") {
      if (typeof value !== "number") return field("rv", "int64", goJsonType(value));
      if (!Number.isInteger(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) {
        return field("rv", "int64", `number ${value}`);
      }
      token.rv = value;
    } else {
      if (typeof value !== "string") return field(name, "string", goJsonType(value));
      if (name === "v") token.v = value;
      else token.start = value;
    }
  }
  return token;
}

/**
 * The number literal given to a top-level `rv` key when it is written with a fraction or an
 * exponent (`6.0`, `1e3`): Go parses an int64 field from the literal's text, so it refuses
 * them even where the value is whole, which `JSON.parse` cannot tell.
 */
function fractionalRv(text: string): string | undefined {
  // `text` is valid JSON (JSON.parse took it): one linear scan, strings skipped.
  const colon = /\s*:/y;
  const number = /-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
  let depth = 0;
  let key: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      colon.lastIndex = j + 1;
      if (depth === 1 && colon.test(text)) key = JSON.parse(text.slice(i, j + 1)) as string;
      i = j;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    else if (depth === 1 && key?.toLowerCase() === "rv" && /[-0-9]/.test(c)) {
      number.lastIndex = i;
      const literal = number.exec(text)![0];
      if (/[.eE]/.test(literal)) return literal;
      i += literal.length - 1;
    } else if (c === ",") key = undefined;
  }
  return undefined;
}

/** Whether Go's `path.Clean` would leave `"/" + key` as it is (no empty, `.` or `..` segment). */
function isCleanKey(key: string): boolean {
  const segments = (key.startsWith("/") ? key.slice(1) : key).split("/");
  return segments.every((s, i) =>
    s !== "." && s !== ".." && (s !== "" || (i === segments.length - 1 && segments.length === 1))
  );
}

/**
 * Decodes a continue token, or throws the API server's 400: not base64url, not JSON of the
 * token's shape (an `rv` that is not an int64), `rv` 0, an empty or unclean start key, or an
 * encoding version other than `meta.k8s.io/v1`.
 */
export function decodeContinue(token: string): ContinueToken {
  const bytes = decodeRawUrlBase64(token);
  if (typeof bytes === "number") invalidToken(`illegal base64 data at input byte ${bytes}`);
  const parsed = unmarshalToken(new TextDecoder().decode(bytes));
  if (typeof parsed === "string") invalidToken(parsed);
  if (parsed.v !== ENCODED_VERSION) {
    fail(badRequest(
      `invalid continue token: continue key is not valid: server does not recognize this encoded version ${parsed.v}`,
    ));
  }
  if (parsed.rv === 0) {
    invalidToken("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (parsed.start === "") invalidToken("encoded start key empty (version meta.k8s.io/v1)");
  if (!isCleanKey(parsed.start)) invalidToken(parsed.start);
  const start = parsed.start.startsWith("/") ? parsed.start.slice(1) : parsed.start;
  return { rv: parsed.rv, start };
}
