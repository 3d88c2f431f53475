// The block formats in the browser, exactly as the server quantises and explains them: OCP MX v1.0 (an E8M0 shared
// scale, 2^(⌊log2 absmax⌋ − emax of the element), NaN for a block holding NaN or inf), NVFP4 (an E4M3 block scale
// under an FP32 tensor scale) and NF4 (its FP32 absmax and codebook). A port of app/formats/blocks.py and of what
// block_detail.py and web/blocks/present.py work out for the page, on the exact codec (codec.js); the
// Python core is the reference and tests/js/test_blocks_parity.py holds the two together, in Node. Every format
// fact comes from the server (app/web/blocks/block_specs.py), never typed here.
//
// The API, for any page (the block visualiser, /compare):
//
//   blockFormats(json) -> {formats: [spec], float32}
//     The specifications from the JSON of block_specs.compact_block_specs() embedded in a page: `formats` in
//     BLOCK_FORMAT_IDS's order, each as block_specs() has it (a `spec` below); float32 as float32_spec().
//   quantizeList(inputs, spec, float32) -> BlockResult
//     Quantise a list in block format `spec`, as POST /api/blocks/quantize does: each input (a string read as the
//     visualiser reads a value, "0.1", "1/3", "0x1.8p-3", "inf", "nan", "-0"; or a number) is first rounded to
//     FP32, then the list is cut into blocks of
//     spec.block_size, the last padded with zeros (which change no block's absmax). Throws InputError with the
//     server's sentence for an input it cannot read or one beyond FP32's range. One value is a block of one.
//   BlockResult: { format, block_size, inputs: [double], dequantized: [double], tensor_scale: double | null,
//     blocks: [{ scale_bits, scale, codes, values }], errors: [rational | null] (stored − input, exactly; null
//     where either is not finite), fates: ["kept" | "saturated" | "zeroed" | "nan"], mse, max_error
//     (rationals, null where a NaN leaves them without a value), codeHex(i), codeBits(i) }
//     A rational is {num, den} of BigInts (exact.js); codec.shown(rational, …) writes it as the pages do.
//
//   quantize(values, spec): the same from doubles that are already FP32 values (NaN and ±inf kept).
//   readList(text, size, float32, maxText, group): the block page's values box read as blocks/pages.py reads it (its
//     refusals' counts grouped with `group`, the page's language's symbol: "," in English, "." in Turkish).
//   explainBlock(result, spec, page): what the block page shows of a one-block result (blocks.present.block_view).
//   sideBySide(values, specs, current, page): the same values in every block format (blocks.present.side_by_side).

// This module holds the API's two readers of specifications and lists; the quantisers live in blocks_quantise.js,
// the reading of the values box in blocks_read.js, what the page shows in blocks_explain.js and the doubles and
// patterns they share in blocks_values.js, each re-exported here.

import { InputError } from "./codec.js";
import { quantize } from "./blocks_quantise.js";
import { fp32Values } from "./blocks_read.js";

export { bitGroups, blockUrl, explainBlock, shownOf, sideBySide, visualiseBitsUrl } from "./blocks_explain.js";
export { blockStep, quantize } from "./blocks_quantise.js";
export { fp32Values, readList } from "./blocks_read.js";
export { realOfDouble, toDouble } from "./blocks_values.js";

// -- the specifications ------------------------------------------------------------------------------------------

/** The block formats of block_specs.compact_block_specs() with their scalar formats put back in place, as
 * block_specs() has them: {formats: [spec], float32}. */
export function blockFormats(json) {
  const scalar = (id) => (id === null ? null : json.scalars[id]);
  const formats = json.formats.map((f) => ({ ...f, element: scalar(f.element), scale: scalar(f.scale),
    tensor: scalar(f.tensor), element_roles: scalar(f.element).roles, scale_roles: scalar(f.scale).roles }));
  return { formats, float32: json.scalars.float32 };
}

/** Quantise a list of inputs (strings as a person types them, or numbers) in block format `spec`, each first
 * rounded to FP32. */
export function quantizeList(inputs, spec, float32) {
  if (!inputs.length) throw new InputError("values is empty; give at least one number to quantise.");
  return quantize(fp32Values(inputs, float32).values, spec);
}
