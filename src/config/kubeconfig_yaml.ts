/**
 * The kubeconfig flavour of the YAML subset parser (`yaml/`): its errors are
 * {@linkcode KubeconfigParseError}s that show only kubeconfig field names in key paths.
 * @module
 */
import { KubeconfigParseError } from "./errors.ts";
import { isKubeconfigField } from "./_kubeconfig_fields.ts";
import { parseYaml } from "./yaml/parse_yaml.ts";
import { YamlSyntaxError } from "./yaml/yaml_syntax_error.ts";
import type { YamlValue } from "./yaml/yaml_value.ts";

/**
 * Parses a kubeconfig's YAML (or JSON) text into plain values.
 *
 * Supported: block mappings and sequences (indented or at the level of their key, `- name:
 * x`); flow mappings and sequences (`{cluster: c, user: u}`, `[a, b]`), nested and over several
 * lines; plain, single- and double-quoted scalars, also folded over lines; literal (`|`) and
 * folded (`>`) block scalars with chomping (`-`, `+`) and indentation indicators; `null`/`~`,
 * booleans and numbers by the YAML 1.2 core schema (integers beyond 2^53 stay strings); plain
 * keys as written; comments; one leading `---`; JSON. Refused with a
 * {@linkcode KubeconfigParseError} (a `YamlSyntaxError`): anchors and aliases, tags, several documents, directives,
 * complex keys (`? `, a collection as a key), `key: value` pairs directly inside `[...]`,
 * duplicate keys, tabs in indentation and nesting deeper than 64 levels. Errors give the line,
 * column and key path, never the text, so no secret can leak through them.
 *
 * Where readers differ, this one follows YAML 1.2 and libyaml (whose Go port kubectl uses): a
 * lone CR is a line break; a block scalar ending the text without a line break gets no final
 * line feed; empty lines after an escaped line break in double quotes are line feeds. A text
 * that is valid JSON is read by `JSON.parse` (so a repeated key keeps its last value).
 */
export function parseKubeconfigYaml(text: string): YamlValue {
  try {
    return parseYaml(text, { showKey: isKubeconfigField, source: "kubeconfig" });
  } catch (error) {
    if (!(error instanceof YamlSyntaxError)) throw error;
    throw new KubeconfigParseError({
      reason: error.reason,
      line: error.line,
      column: error.column,
      key: error.key,
    });
  }
}
