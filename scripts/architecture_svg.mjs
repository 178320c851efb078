#!/usr/bin/env node
// docs/architecture.svg: the data-flow diagram of docs/ARCHITECTURE.md, drawn from DIAGRAM
// below. When files move or a stage changes, edit DIAGRAM and run this; every file it names
// must exist (the script fails naming the one that does not), and
// tests/integration/svg_render_test.ts fails while the committed SVG differs from what this
// writes.
//
//   node scripts/architecture_svg.mjs            writes docs/architecture.svg
//   node scripts/architecture_svg.mjs OUT.svg    writes it to OUT.svg instead
import { existsSync, realpathSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { root } from "./_run.mjs";
import { num, svgDocument, text, wrap } from "./_svg.mjs";

/**
 * The diagram: layers (a folder of src/ each, drawn as a band) holding stages (boxes, top to
 * bottom, in the order data flows), each with the files it lives in (relative to its layer's
 * folder) and what it hands to the next stage (the arrow's label).
 */
export const DIAGRAM = {
  title: "One watch event, from the socket to events()",
  subtitle: "Each box names the files it lives in. Drawn by scripts/architecture_svg.mjs.",
  layers: [
    {
      folder: "src/client/",
      role: "the API client on fetch",
      stages: [{
        title: "Socket",
        text: "A chunked HTTP watch response, or WebSocket messages made into the same body.",
        files: ["kube_client.ts", "watch_transport.ts", "websocket_watch.ts"],
        out: "Uint8Array chunks",
      }],
    },
    {
      folder: "src/watch/",
      role: "the watch stream",
      stages: [
        {
          title: "Bytes to lines",
          text: "Splits on newlines without decoding text; a transport may hand over raw chunks.",
          files: ["line_splitter.ts", "response_bytes.ts"],
          out: "one line of JSON per event",
        },
        {
          title: "Watch events",
          text: "Parses each line into a typed event; a bad line is a WatchDecodeError.",
          files: ["watch_decoder.ts", "watch_event.ts", "decode_error.ts"],
          out: "ADDED, MODIFIED, DELETED, BOOKMARK, ERROR",
        },
      ],
    },
    {
      folder: "src/cache/",
      role: "the informer (wired in informer.ts)",
      stages: [
        {
          title: "Reflector",
          text:
            "LIST then WATCH, forever: one state union, pure rules; recovery and pacing around the loop.",
          files: ["reflector.ts", "reflector_state.ts", "list_pager.ts", "request_pacer.ts"],
          out: "watcher events: init, init-apply, init-done, apply, delete, bookmark",
        },
        {
          title: "Store writer",
          text:
            "apply and delete straight into the indexer; a relist and a resync through the DeltaFIFO (tombstones) and processDeltas.",
          files: ["store_writer.ts", "indexer.ts", "delta_fifo.ts", "process_deltas.ts"],
          out: "add, update, delete, synced",
        },
        {
          title: "Listeners",
          text: "One ring buffer per consumer, so a slow one never holds up the others.",
          files: ["listener_set.ts", "listener.ts"],
          out: "one event at a time, per listener",
        },
        {
          title: "events() and handlers",
          text: "for await (const ev of informer.events()), or addEventHandler callbacks.",
          files: ["events_iterator.ts", "event_handler.ts"],
        },
      ],
    },
  ],
};

/** Files DIAGRAM names that do not exist, as repository paths. */
export function missingFiles(diagram = DIAGRAM) {
  return diagram.layers.flatMap((l) => l.stages.flatMap((s) => s.files.map((f) => l.folder + f)))
    .filter((path) => !existsSync(join(root, path)));
}

const WIDTH = 760;
const PAD = 16; // outer margin
const BOX_X = 200; // boxes start here; the layer's folder sits left of them
const BOX_W = WIDTH - PAD * 2 - 16 - BOX_X + PAD; // to 16 px inside the band
const INSET = 12; // inside a box
const GAP = 46; // between boxes: the arrow and its label
const TITLE = { size: 15, bold: true };
const BODY = { size: 13 };
const FILES = { size: 12, mono: true };
const FOLDER = { size: 13, mono: true, bold: true };
const ROLE = { size: 12 };

/** The SVG text of the diagram (throws when a file it names does not exist). */
export function architectureSvg(diagram = DIAGRAM) {
  const missing = missingFiles(diagram);
  if (missing.length > 0) {
    throw new Error(
      `scripts/architecture_svg.mjs: DIAGRAM names files that do not exist: ${missing.join(", ")}`,
    );
  }
  const body = [];
  let y = PAD + 20;
  body.push(text(PAD + 8, y, diagram.title, { size: 18, cls: "fg bold" }));
  y += 22;
  for (const line of wrap(diagram.subtitle, WIDTH - 2 * PAD - 16, BODY)) {
    body.push(text(PAD + 8, y, line, { size: BODY.size, cls: "muted" }));
    y += 18;
  }
  y += 10 + 14; // the first box's top
  const inner = BOX_W - 2 * INSET;
  const stages = diagram.layers.flatMap((l) => l.stages);
  const boxes = [];
  let lastBottom = y;
  for (const [li, layer] of diagram.layers.entries()) {
    const first = li === 0;
    const last = li === diagram.layers.length - 1;
    // Bands meet halfway down the gap between their boxes, 6 px apart.
    const bandTop = first ? y - 14 : y - GAP / 2 + 3;
    const bandBody = [];
    for (const stage of layer.stages) {
      const desc = wrap(stage.text, inner, BODY);
      const files = wrap(stage.files.join("  "), inner, FILES);
      const height = INSET + 16 + 8 + desc.length * 18 + 4 + files.length * 16 + INSET - 2;
      boxes.push({ stage, top: y, height });
      let ty = y + INSET + 15;
      bandBody.push(`<g class="box">`);
      bandBody.push(
        `<rect class="panel edge" x="${BOX_X}" y="${num(y)}" width="${BOX_W}" height="${
          num(height)
        }" rx="6" stroke-width="1"/>`,
      );
      bandBody.push(text(BOX_X + INSET, ty, stage.title, { size: TITLE.size, cls: "fg bold" }));
      ty += 8;
      for (const line of desc) {
        ty += 18;
        bandBody.push(text(BOX_X + INSET, ty - 4, line, { size: BODY.size }));
      }
      ty += 4;
      for (const line of files) {
        ty += 16;
        bandBody.push(text(BOX_X + INSET, ty - 3, line, { size: FILES.size, cls: "muted mono" }));
      }
      bandBody.push(`</g>`);
      lastBottom = y + height;
      y = lastBottom + (stage === stages.at(-1) ? 0 : GAP);
    }
    const bandBottom = last ? lastBottom + 14 : lastBottom + GAP / 2 - 3;
    body.push(
      `<rect class="band" x="${PAD}" y="${num(bandTop)}" width="${WIDTH - 2 * PAD}" height="${
        num(bandBottom - bandTop)
      }" rx="8"/>`,
    );
    body.push(
      text(PAD + 12, bandTop + 26, layer.folder, { size: FOLDER.size, cls: "fg mono bold" }),
    );
    let ry = bandTop + 44;
    for (const line of wrap(layer.role, BOX_X - PAD - 12 - 14, ROLE)) {
      body.push(text(PAD + 12, ry, line, { size: ROLE.size, cls: "muted" }));
      ry += 16;
    }
    body.push(...bandBody);
  }
  // Arrows between consecutive boxes, with what flows along them.
  for (let i = 0; i + 1 < boxes.length; i++) {
    const from = boxes[i].top + boxes[i].height;
    const to = boxes[i + 1].top;
    const x = BOX_X + 36;
    body.push(
      `<line class="line" x1="${x}" y1="${num(from + 2)}" x2="${x}" y2="${num(to - 8)}" ` +
        `stroke-width="2"/>`,
      `<path class="head" d="M ${x - 6} ${num(to - 10)} L ${x + 6} ${num(to - 10)} L ${x} ${
        num(to - 1)
      } Z"/>`,
    );
    const label = boxes[i].stage.out;
    if (label !== undefined) {
      body.push(
        text(x + 14, (from + to) / 2 + 4, label, { size: 12, cls: "muted italic" }),
      );
    }
  }
  const height = lastBottom + 14 + PAD;
  return svgDocument({
    width: WIDTH,
    height,
    title: `kinformer architecture: ${diagram.title}`,
    desc: describe(diagram),
    body,
  });
}

/** The diagram in words, for screen readers (the SVG's <desc>). */
function describe(diagram) {
  const stages = diagram.layers.flatMap((l) =>
    l.stages.map((s) =>
      `${s.title} (${l.folder}: ${s.files.join(", ")})${s.out ? `, passing ${s.out}` : ""}`
    )
  );
  return `Data flows top to bottom through ${stages.length} stages: ${stages.join("; then ")}.`;
}

// Only its exports when imported (the render test); writes the SVG when run.
const script = process.argv[1];
if (script !== undefined && realpathSync(script) === realpathSync(fileURLToPath(import.meta.url))) {
  const out = resolve(process.argv[2] ?? join(root, "docs", "architecture.svg"));
  await writeFile(out, architectureSvg());
  console.log(`wrote ${relative(root, out)}`);
}
