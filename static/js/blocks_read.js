// The block page's values box read in the browser as app/web/blocks/pages.py reads it: a list of typed
// values, each rounded to FP32, refused with the server's sentences. Part of blocks.js, which re-exports it.

import { InputError, SPACES, encodeValue, parseNumber, quoted } from "./codec.js";
import { floatG } from "./exact.js";
import { maxOf, realOfDouble, toDouble } from "./blocks_values.js";

// Python's \s (str.isspace), commas and semicolons: what blocks.pages._SEPARATORS splits a list on
const SEPARATORS = new RegExp(`[${SPACES},;]+`);
const codePoints = (text) => Array.from(text);
/** A count as prose_decimal writes it: groups of three digits, apart by the language's symbol (CLDR's pattern
 * #,##0 for every language served). */
const grouped = (n, group) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, group);
const head = (entry) => quoted(codePoints(entry).slice(0, 40).join(""));

/** Each entry read exactly and rounded once to FP32 (nearest even): the values, and how many that rounding
 * changed. An entry may be a number, taken as it is (a double, rounded to FP32 like any value). */
export function fp32Values(entries, float32) {
  const values = [];
  let changed = 0;
  entries.forEach((entry, index) => {
    const position = index + 1;
    let parsed;
    try {
      parsed = typeof entry === "number" ? realOfDouble(entry) : parseNumber(entry);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      throw new InputError("Value %(position)s (%(entry)s) cannot be used: %(why)s",
        { position, entry: head(String(entry)), why: error.phrase });
    }
    const rounded = encodeValue(float32, parsed);
    if (rounded.overflowed) {
      throw new InputError("Value %(position)s (%(entry)s) is beyond FP32's range (±%(max)s); block formats "
        + "quantise FP32 tensors, so give a value within it, or inf.",
      { position, entry: head(String(entry)), max: floatG(maxOf(float32), 6) });
    }
    const error = rounded.error;
    if (rounded.input.kind === "finite" && !(error.kind === "finite" && error.num === 0n)) changed += 1;
    values.push(toDouble(rounded.encoding.value));
  });
  return { values, changed };
}

/** The values box of the block page, read as blocks/pages.py reads it: {entries, values, changed}. */
export function readList(text, size, float32, maxText, group = ",") {
  const length = codePoints(text).length;
  if (length > maxText) {
    throw new InputError("The list is %(length)s characters long; at most %(most)s are accepted.",
      { length: grouped(length, group), most: grouped(maxText, group) });
  }
  const entries = text.replaceAll("\u2212", "-").split(SEPARATORS).filter((entry) => entry);
  if (!entries.length) {
    throw new InputError("The list is empty; type up to %(size)s numbers, separated by commas, spaces or new "
      + "lines.", { size });
  }
  if (entries.length > size) {
    throw new InputError("One block holds %(size)s values and the list has %(count)s; remove %(extra)s, or "
      + "quantise a longer vector with POST /api/blocks/quantize.",
    { size, count: entries.length, extra: entries.length - size });
  }
  return { entries, ...fp32Values(entries, float32) };
}
