/**
 * The values the YAML subset parser gives: what `JSON.parse` gives for the same document.
 * @module
 */

/** A parsed YAML (or JSON) value: what `JSON.parse` would give for the same document. */
export type YamlValue = null | boolean | number | string | YamlValue[] | YamlMapping;

/** A YAML mapping with string keys. */
export interface YamlMapping {
  /** Value of a key. */
  [key: string]: YamlValue;
}
