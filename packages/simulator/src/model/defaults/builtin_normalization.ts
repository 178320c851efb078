/**
 * What kube-apiserver's decoding does to a built-in object before it is stored, so the
 * simulated cluster stores (and answers) the same object a real one would:
 *
 * - a Secret's `stringData` is merged into `data`, base64-encoded (a `stringData` key wins over
 *   the same `data` key), and removed; `type` defaults to `Opaque`; every `data` value must be
 *   valid standard base64 (padded; line breaks ignored), else 400 BadRequest worded as the
 *   server's (`Secret in version "v1" cannot be handled as a Secret: illegal base64 data at
 *   input byte 4`);
 * - empty maps and lists the Go types omit (`omitempty`) are dropped: `metadata.labels`,
 *   `metadata.annotations`, `metadata.finalizers`, `metadata.ownerReferences`, ConfigMap
 *   `data` and `binaryData`, Secret `data`.
 *
 * Custom resources are stored as given (their JSON has no Go type to round-trip through), so
 * this applies to the built-in groups only. It runs on every write that stores an object:
 * create, update, every patch type and server-side apply alike.
 * @module
 */
import { setOwn } from "../../core/own_properties.ts";
import type { KubeObject } from "@kinformer/kinformer/client";
import { base64Utf8, isRecord } from "@kinformer/kinformer/internal";
import { badRequest, fail } from "../../core/status.ts";
import type { ResourceInfo } from "../registry/served_resources.ts";
import { isBuiltIn } from "./patch_strategies.ts";

/** Metadata fields that are dropped when empty. */
const OMIT_EMPTY_META = ["labels", "annotations", "finalizers", "ownerReferences"] as const;

/**
 * Normalises `item` (the object about to be stored) in place as kube-apiserver's decoding of a
 * built-in kind does (see the module doc); custom resources are left alone.
 *
 * @throws {KubeApiError} 400 for a Secret's `data` value that is not base64, or a `data` or
 *   `stringData` value that is not a string.
 */
export function normalizeBuiltIn(info: ResourceInfo, item: KubeObject): void {
  if (!isBuiltIn(info)) return;
  const meta = item.metadata as Record<string, unknown>;
  for (const field of OMIT_EMPTY_META) dropIfEmpty(meta, field);
  const obj = item as Record<string, unknown>;
  if (info.desc.group) return;
  if (info.desc.kind === "ConfigMap") {
    dropIfEmpty(obj, "data");
    dropIfEmpty(obj, "binaryData");
  } else if (info.desc.kind === "Secret") {
    normalizeSecret(obj);
  }
}

function dropIfEmpty(holder: Record<string, unknown>, field: string): void {
  const value = holder[field];
  if (
    Object.hasOwn(holder, field) &&
    (Array.isArray(value) ? value.length === 0 : isRecord(value) && Object.keys(value).length === 0)
  ) {
    delete holder[field];
  }
}

/** The JSON type name Go's decoder gives a value in its errors. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value === "object" ? "object" : typeof value;
}

function cannotHandle(detail: string): never {
  fail(badRequest(`Secret in version "v1" cannot be handled as a Secret: ${detail}`));
}

function normalizeSecret(obj: Record<string, unknown>): void {
  const data = obj.data;
  if (isRecord(data)) {
    for (const value of Object.values(data)) {
      if (value === null) continue;
      if (typeof value !== "string") {
        cannotHandle(`json: cannot unmarshal ${jsonType(value)} into Go value of type []uint8`);
      }
      const at = base64Problem(value);
      if (at !== undefined) cannotHandle(`illegal base64 data at input byte ${at}`);
    }
  }
  const stringData = obj.stringData;
  if (Object.hasOwn(obj, "stringData")) {
    if (isRecord(stringData)) {
      const merged: Record<string, unknown> = isRecord(data) ? { ...data } : {};
      for (const [key, value] of Object.entries(stringData)) {
        if (typeof value !== "string") {
          cannotHandle(
            `json: cannot unmarshal ${
              jsonType(value)
            } into Go struct field Secret.stringData of type string`,
          );
        }
        setOwn(merged, key, base64Utf8(value));
      }
      // `data` takes the place `stringData` had when there was none.
      if (!Object.hasOwn(obj, "data")) {
        const rest = Object.entries(obj);
        for (const [k] of rest) delete obj[k];
        for (const [k, v] of rest) {
          setOwn(obj, k === "stringData" ? "data" : k, k === "stringData" ? merged : v);
        }
      } else {
        obj.data = merged;
      }
    } else if (stringData !== null) {
      cannotHandle(
        `json: cannot unmarshal ${
          jsonType(stringData)
        } into Go struct field Secret.stringData of type map[string]string`,
      );
    }
    delete obj.stringData;
  }
  dropIfEmpty(obj, "data");
  if (obj.type === undefined || obj.type === null || obj.type === "") obj.type = "Opaque";
}

/** The standard base64 alphabet. */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Where Go's `base64.StdEncoding` finds `text` corrupt (the input byte offset it reports), or
 * undefined when it decodes: padding is required, `\r` and `\n` are skipped.
 */
export function base64Problem(text: string): number | undefined {
  const newline = (c: string | undefined) => c === "\n" || c === "\r";
  let si = 0;
  while (si < text.length) {
    let j = 0;
    for (; j < 4; j++) {
      if (si === text.length) {
        // An incomplete quantum at the end.
        return j === 0 ? undefined : si - j;
      }
      const c = text[si++]!;
      if (ALPHABET.includes(c)) continue;
      if (newline(c)) {
        j--;
        continue;
      }
      if (c !== "=" || j < 2) return si - 1;
      if (j === 2) {
        // "xx==": a second padding character must follow.
        while (si < text.length && newline(text[si])) si++;
        if (si === text.length) return text.length;
        if (text[si] !== "=") return si - 1;
        si++;
      }
      while (si < text.length && newline(text[si])) si++;
      return si < text.length ? si : undefined;
    }
  }
  return undefined;
}
