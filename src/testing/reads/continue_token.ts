/**
 * The continue token of a paged LIST: base64url JSON of the snapshot's resourceVersion and the
 * key the next page starts at.
 * @module
 */
import { base64Utf8 } from "../../util/values.ts";
import { badRequest, fail } from "../serving/status.ts";

function base64UrlEncode(text: string): string {
  return base64Utf8(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function base64UrlDecode(token: string): string {
  const b64 = token.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder("utf-8", { fatal: true }).decode(
    Uint8Array.from(bin, (c) => c.charCodeAt(0)),
  );
}

/** Encodes a continue token: base64url JSON of the snapshot RV and the key to start at. */
export function encodeContinue(rv: number, start: string): string {
  return base64UrlEncode(JSON.stringify({ v: "meta.k8s.io/v1", rv, start }));
}

/** Decodes a continue token, or a 400 when it is not one of ours. */
export function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(base64UrlDecode(token)) as {
      v?: unknown;
      rv?: unknown;
      start?: unknown;
    };
    if (
      parsed.v === "meta.k8s.io/v1" && typeof parsed.rv === "number" && parsed.rv > 0 &&
      typeof parsed.start === "string"
    ) {
      return { rv: parsed.rv, start: parsed.start };
    }
  } catch {
    // Falls through to the 400 below: the token is not base64url JSON.
  }
  fail(badRequest(`continue key is not valid: ${JSON.stringify(token)}`));
}
