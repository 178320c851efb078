import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  checkPrinterColumns,
  jsonPathText,
  printerColumnsConvertor,
} from "../../../src/model/tables/printer_columns.ts";

describe("a CRD's printer columns", () => {
  test("cells are typed by the column's type, as the API server's table convertor does", () => {
    const now = Date.UTC(2026, 0, 1, 1, 0, 0);
    const convertor = printerColumnsConvertor([
      { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
      { name: "Ratio", type: "number", jsonPath: ".spec.ratio" },
      { name: "Paused", type: "boolean", jsonPath: ".spec.paused" },
      { name: "Text", type: "string", jsonPath: ".spec.text" },
      { name: "Since", type: "date", jsonPath: ".status.since" },
      { name: "Wrong", type: "integer", jsonPath: ".spec.text" },
      { name: "Missing", type: "string", jsonPath: ".spec.none" },
    ]);
    assert.deepEqual(convertor.columns.map((c) => [c.name, c.type, c.priority]), [
      ["Name", "string", 0],
      ["Replicas", "integer", 0],
      ["Ratio", "number", 0],
      ["Paused", "boolean", 0],
      ["Text", "string", 0],
      ["Since", "date", 0],
      ["Wrong", "integer", 0],
      ["Missing", "string", 0],
    ]);
    assert.equal(
      convertor.columns[1]!.description,
      "Custom resource definition column (in JSONPath format): .spec.replicas",
    );
    const row = convertor.row({
      metadata: { name: "x" },
      spec: { replicas: 2.7, ratio: 0.5, paused: true, text: { b: 1, a: "<" } },
      status: { since: "2026-01-01T00:30:00Z" },
    }, now);
    assert.deepEqual(row.cells, ["x", 2, 0.5, true, '{"a":"\\u003c","b":1}', "30m", null, null]);
  });

  test("without printer columns: Name and Age", () => {
    const convertor = printerColumnsConvertor([]);
    assert.deepEqual(convertor.columns.map((c) => [c.name, c.type]), [["Name", "string"], [
      "Age",
      "date",
    ]]);
  });

  test("string cells print values as kubectl's JSONPath does (Go's formatting of floats)", () => {
    const table: Array<[unknown, string | null]> = [
      ["a", "a"],
      [3, "3"],
      [1.5, "1.5"],
      [1234567.5, "1.2345675e+06"],
      [0.00001, "1e-05"],
      [123456.5, "123456.5"],
      [false, "false"],
      [[1, "x"], '[1,"x"]'],
      [null, null],
    ];
    for (const [value, text] of table) assert.equal(jsonPathText(value), text, String(value));
  });

  test("bad columns are TypeErrors naming the column", () => {
    const bad: Array<[unknown, RegExp]> = [
      ["x", /must be an array/],
      [[{ name: "A", type: "int", jsonPath: ".a" }], /\[0\]\.type must be one of/],
      [[{ name: "", type: "string", jsonPath: ".a" }], /\[0\]\.name/],
      [[{ name: "A", type: "string", jsonPath: ".a[" }], /\[0\]\.jsonPath: invalid JSONPath/],
      [[{ name: "A", type: "string", jsonPath: ".a", priority: -1 }], /priority/],
    ];
    for (const [columns, message] of bad) {
      assert.throws(
        () => checkPrinterColumns(columns, "printerColumns"),
        (e: Error) => e instanceof TypeError && message.test(e.message),
      );
    }
  });
});
