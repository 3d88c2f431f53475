// /compare's rows in the browser: a scalar format's line from the exact codec (codec.js), a block format's from
// blocks.js (the value, rounded to FP32, alone in one block), as app/web/compare/pages.py and compare_blocks.py
// work them out. Each fills its row of templates/compare.html: bits, hex, values and error, its link, and which
// of the row's flags and notes show (the server writes them all; a block row's note comes from the page's words).

import { decode, encodeValue, errorOf, relative, relativeError, shown } from "./codec.js";
import { quantize, realOfDouble, toDouble } from "./blocks.js";
import { barOf } from "./compare_chart.js";
import { quote, visualiseUrl } from "./urls.js";
import { setAttr, setNum, setText } from "./view_slots.js";

function setBits(row, binary) {
  row.querySelectorAll(".bit").forEach((cell, i) => {
    if (cell.dataset.value !== binary[i]) {
      cell.dataset.value = binary[i];
      cell.textContent = binary[i];
    }
  });
}

/** The row's flags shown as `flags` says, and its note's sentence (none: hidden). */
function setNotes(row, flags, note) {
  for (const flag of row.querySelectorAll("[data-flag]")) flag.hidden = !flags.includes(flag.dataset.flag);
  const said = row.querySelector("[data-note]");
  said.hidden = !note;
  setText(said, note ?? "");
}

function setValues(row, stored, error, rel) {
  setNum(row.querySelector("[data-stored] .num"), stored);
  setNum(row.querySelector("[data-error-cell] .num"), error);
  setText(row.querySelector("[data-rel]"), rel);
}

/** A scalar format's row (compare._row) for the value x and the choices; answers its bar. */
export function scalarRow(row, spec, x, choice, prefix) {
  const rounded = encodeValue(spec, x, choice.rounding, choice.overflow, choice.seed);
  const enc = rounded.encoding;
  setBits(row, enc.binary);
  setAttr(row.querySelector("th a"), "href", visualiseUrl(spec.id, { value: choice.value, rounding: choice.rounding,
    overflow: choice.overflow, seed: choice.rounding === "stochastic" ? choice.seed : null, prefix }));
  setText(row.querySelector("[data-hex]"), enc.hex);
  setValues(row, shown(enc.value, 80, 20), shown(rounded.error, 40), rounded.relErrorText);
  const flags = [rounded.overflowed && "overflow", rounded.underflowed && "underflow", enc.cls];
  setNotes(row, flags, rounded.note?.said);
  return { group: "scalar", ...barOf(rounded.error, rounded.relError) };
}

const FLAGS = { saturated: "saturated", zeroed: "underflow", nan: "nan" }; // compare_blocks.BlockRow.flag

/** compare_blocks.BlockRow.note_id: which of the page's block notes a row says. */
function noteId(fate, x) {
  if (fate === "nan") return x.kind === "finite" ? null : `nan-${x.kind === "nan" ? "NaN" : "inf"}`;
  return fate === "saturated" || fate === "zeroed" ? fate : null;
}

/** The block rows (compare_blocks.block_rows): the value x (typed as `typed`) rounded to FP32, alone in a block of
 * each format; `words` the page's notes by id; answers their bars. */
export function blockRows(rows, x, typed, page, words) {
  const float32 = encodeValue(page.float32, x);
  const refused = float32.overflowed, value = toDouble(float32.encoding.value);
  return rows.map((row) => {
    const spec = page.blocks.get(row.dataset.blockFormat);
    setAttr(row.querySelector("th a"), "href", `${page.prefix}/visualise/${spec.id}?values=${quote(typed)}`);
    row.querySelector("[data-block-bits]").hidden = refused;
    row.querySelector("[data-no-block]").hidden = !refused;
    if (refused) {
      delete row.dataset.fate;
      setValues(row, null, null, "—");
      setNotes(row, [], words.get("refused"));
      return { group: "block", ...barOf(undefined) };
    }
    const result = quantize([value], spec), block = result.blocks[0], fate = result.fates[0];
    const element = decode(spec.element, BigInt(block.codes[0]));
    setBits(row, element.binary);
    setText(row.querySelector("[data-code-hex]"), element.hex);
    setText(row.querySelector("[data-scale-hex]"), `0x${BigInt(block.scale_bits).toString(16)
      .padStart((spec.scale.bits + 3) >> 2, "0")}`);
    const held = realOfDouble(result.dequantized[0]), error = errorOf(held, x), rel = relativeError(error, x);
    row.dataset.fate = fate;
    setValues(row, shown(held, 80, 20), shown(error, 40), relative(rel));
    const note = noteId(fate, x);
    setNotes(row, [FLAGS[fate]], note && words.get(note));
    return { group: "block", ...barOf(error, rel) };
  });
}
