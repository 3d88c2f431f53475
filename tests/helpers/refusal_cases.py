"""The refusals of the formats core, one call each, with the English sentence each is refused with today, character
for character: held by tests/unit/test_refusal_messages.py (the template gives that English) and
tests/web/platform/test_refusal_sentences.py (refusal_sentence gives it in each language)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from app.formats import (
    arithmetic,
    arithmetic_chain,
    block_inputs,
    codec,
    custom,
    dot_inputs,
    dot_steps,
    parse,
    registry,
    rounding,
    summation,
    vector,
)
from app.formats.dot_product import checked_dot_format, checked_dot_method, dot_product
from app.formats.exact import Real
from app.formats.registry import FORMATS

F16 = FORMATS["float16"]

# (name, the call, the English sentence it is refused with: today's, character for character)
CASES = [
    ('too_long', lambda: parse.parse_value("1" * 1101),
     'The input is 1101 characters long; at most 1100 are accepted.'),
    ('empty', lambda: parse.parse_value("   "),
     'The input is empty; type a number. Accepted: decimals (0.1, -2.5e-3), hex floats (0x1.8p-3), fractions '
     '(1/3), inf, -inf, nan, -0, and raw bits (0x3c00 or 0b0011110000000000).'),
    ('no_digit', lambda: parse.parse_value("."),
     'A number needs at least one digit.'),
    ('exponent', lambda: parse.parse_value("1e100001"),
     'The exponent 100001 is out of range; decimal exponents from -100000 to 100000 are accepted (far beyond every '
     'format here).'),
    ('exponent_neg', lambda: parse.parse_value("1e-100001"),
     'The exponent -100001 is out of range; decimal exponents from -100000 to 100000 are accepted (far beyond '
     'every format here).'),
    ('divides_by_zero', lambda: parse.parse_value("1/0"),
     "'1/0' divides by zero; the denominator must not be 0."),
    ('unreadable', lambda: parse.parse_value("abc"),
     "Could not read 'abc' as a number. Accepted: decimals (0.1, -2.5e-3), hex floats (0x1.8p-3), fractions (1/3), "
     'inf, -inf, nan, -0, and raw bits (0x3c00 or 0b0011110000000000).'),
    ('unreadable_long', lambda: parse.parse_value("x" * 60),
     "Could not read 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' as a number. Accepted: decimals (0.1, -2.5e-3), "
     'hex floats (0x1.8p-3), fractions (1/3), inf, -inf, nan, -0, and raw bits (0x3c00 or 0b0011110000000000).'),
    ('unreadable_quote', lambda: parse.parse_value("it's"),
     'Could not read "it\'s" as a number. Accepted: decimals (0.1, -2.5e-3), hex floats (0x1.8p-3), fractions '
     '(1/3), inf, -inf, nan, -0, and raw bits (0x3c00 or 0b0011110000000000).'),
    ('fraction_size', lambda: parse.parse_value("1e100000/1e-100000"),
     'That fraction is about 10^200000; a value from 10^-100000 to 10^100000 is accepted, which is already far '
     'beyond every format here.'),
    ('fraction_size_neg', lambda: parse.parse_value("1e-100000/1e100000"),
     'That fraction is about 10^-200000; a value from 10^-100000 to 10^100000 is accepted, which is already far '
     'beyond every format here.'),
    ('hex_no_digit', lambda: parse.parse_value("0x.p3"),
     'A hex float needs at least one hex digit, as in 0x1.8p-3.'),
    ('binary_exponent', lambda: parse.parse_value("0x1p400001"),
     'The binary exponent p400001 is out of range; from p-400000 to p400000 are accepted.'),
    ('binary_exponent_neg', lambda: parse.parse_value("0x1p-400001"),
     'The binary exponent p-400001 is out of range; from p-400000 to p400000 are accepted.'),
    ('raw_bits', lambda: parse.parse_number("0x3c00"),
     "'0x3c00' is a raw bit pattern, not a value; to give a value in hex write a hex float such as 0x1.8p-3, or "
     'decode the pattern in one format instead.'),
    ('bits_unreadable', lambda: parse.parse_bits("zz", F16),
     "Could not read 'zz' as a bit pattern; write it in hex (0x3c00), binary (0b0011…) or as a non-negative "
     'decimal integer.'),
    ('bits_wide', lambda: parse.parse_bits("0x10000", F16),
     "The pattern '0x10000' is wider than float16's 16 bits; the largest pattern is 0xffff."),
    ('bits_empty', lambda: parse.parse_bits("", F16),
     'The input is empty; type a number. Accepted: decimals (0.1, -2.5e-3), hex floats (0x1.8p-3), fractions '
     '(1/3), inf, -inf, nan, -0, and raw bits (0x3c00 or 0b0011110000000000).'),
    ('not_block', lambda: block_inputs.block_format("float16"),
     "'float16' is not a block format; block quantisation takes one of: mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, "
     'mxfp6_e3m2, mxfp4, mxint8, nvfp4, nf4.'),
    ('not_block_nonstr', lambda: block_inputs.block_format(3),
     '3 is not a block format; block quantisation takes one of: mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, '
     'mxfp4, mxint8, nvfp4, nf4.'),
    ('block_size', lambda: block_inputs.checked_block_size(0, FORMATS["mxfp4"]),
     'block_size must be a whole number from 1 to 4096; got 0.'),
    ('block_size_str', lambda: block_inputs.checked_block_size("8", FORMATS["mxfp4"]),
     "block_size must be a whole number from 1 to 4096; got '8'."),
    ('values_str', lambda: block_inputs.fp32_vector("1,2"),
     'values must be a list of numbers, as in [0.5, -1.25, 3].'),
    ('values_empty', lambda: block_inputs.fp32_vector([]),
     'values is empty; give at least one number to quantise.'),
    ('values_many', lambda: block_inputs.fp32_vector(np.zeros(1_000_001)),
     'values has 1,000,001 numbers; at most 1,000,000 are accepted.'),
    ('values_item', lambda: block_inputs.fp32_vector([1, "a"]),
     "values[1] is 'a', not a number; give a flat list of numbers, as in [0.5, -1.25, 3]."),
    ('values_item_long', lambda: block_inputs.fp32_vector([1, "a" * 60]),
     "values[1] is 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…, not a number; give a flat list of numbers, as in "
     '[0.5, -1.25, 3].'),
    ('values_overflow_int', lambda: block_inputs.fp32_vector([1, 10**400]),
     "values[1] is beyond FP32's range (±3.40282e+38); give values within it."),
    ('values_nested', lambda: block_inputs.fp32_vector([[1, 2], [3, 4]]),
     'values[0] is [1, 2], not a number; give a flat list of numbers, as in [0.5, -1.25, 3].'),
    ('values_not_flat', lambda: block_inputs.fp32_vector([1, Fraction(1, 3)]),
     'values must be a flat list of numbers, as in [0.5, -1.25, 3].'),
    ('values_range', lambda: block_inputs.fp32_vector([1, 1e39]),
     "values[1] is 1e+39, beyond FP32's range (±3.40282e+38); block formats quantise FP32 tensors, so give values "
     'within it.'),
    ('nan_style', lambda: custom.nan_style_named("weird"),
     "Unknown nan_style 'weird'; choose one of: ieee, fn, fnuz, none."),
    ('bias', lambda: custom.custom_format(5, 10, 40000),
     'The bias of a custom format is from -32768 to 32768, so bias=40000 is refused.'),
    ('bias_huge', lambda: custom.custom_format(5, 10, 10**20),
     'The bias of a custom format is from -32768 to 32768, so bias with more than 15 digits is refused.'),
    ('exponent_bits', lambda: custom.custom_format(16, 10),
     "A custom format has 1 to 15 exponent bits (binary128's 15 are the most), so exponent_bits=16 is refused."),
    ('exponent_bits_huge', lambda: custom.custom_format(10**16, 10),
     "A custom format has 1 to 15 exponent bits (binary128's 15 are the most), so exponent_bits with more than 15 "
     'digits is refused.'),
    ('mantissa_bits', lambda: custom.custom_format(5, 0),
     "A custom format has 1 to 112 mantissa bits (binary128's 112 are the most; with none there would be no "
     'subnormals), so mantissa_bits=0 is refused.'),
    ('ieee_one_bit', lambda: custom.custom_format(1, 3),
     'IEEE-style inf and NaN take the all-ones exponent field, which leaves a 1-bit exponent no normal numbers; '
     'give at least 2 exponent bits, or choose nan_style fn, fnuz or none.'),
    ('rounding', lambda: rounding.rounding_mode("up"),
     "Unknown rounding 'up'; choose one of: nearest_even, nearest_away, toward_zero, toward_positive, "
     'toward_negative, stochastic.'),
    ('rounding_long', lambda: rounding.rounding_mode("u" * 60),
     "Unknown rounding 'uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu'; choose one of: nearest_even, nearest_away, "
     'toward_zero, toward_positive, toward_negative, stochastic.'),
    ('overflow', lambda: rounding.overflow_policy("wrap"),
     "Unknown overflow policy 'wrap'; choose one of: format_default, saturate."),
    ('unknown_format', lambda: registry.get_format("float7"),
     "Unknown format 'float7'; known formats are: float128, float64, float32, tfloat32, float16, bfloat16, "
     'float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3, float8_e3m4, float8_e4m3b11fnuz, '
     'float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn, int8, uint8, int4, uint4, int2, uint2, nf4, '
     'mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4, mxint8, nvfp4.'),
    ('unknown_format_nonstr', lambda: registry.get_format(["x"]),
     "Unknown format ['x']; known formats are: float128, float64, float32, tfloat32, float16, bfloat16, "
     'float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3, float8_e3m4, float8_e4m3b11fnuz, '
     'float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn, int8, uint8, int4, uint4, int2, uint2, nf4, '
     'mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4, mxint8, nvfp4.'),
    ('codec_block', lambda: codec.decode(FORMATS["mxfp4"], 0),
     'mxfp4 is a block format: its values share a scale, so quantise a whole vector with POST /api/blocks/quantize '
     'instead.'),
    ('vector_block', lambda: vector.round_to_format(np.zeros(2), FORMATS["mxfp4"]),
     'mxfp4 is a block format: quantise its vectors with quantize_blocks.'),
    ('vector_no_fast', lambda: vector.round_to_format(np.zeros(2), FORMATS["float128"]),
     'float128 (FP128 (quad)) has no numpy or ml_dtypes type, so it has no vectorised path; store its values one '
     'at a time with the exact codec (encode and decode).'),
    ('not_summable_dtype', lambda: summation._dtype(FORMATS["float128"]),
     'float128 cannot be summed here; choose one of float64, float32, float16, bfloat16, float8_e4m3fn, float8_e5m2.'),
    ('fp32_of_fp64', lambda: summation.sum_values(np.ones(2), FORMATS["float64"], np.array([2]), ("fp32",)),
     "FP32 accumulation is for formats of at most 32 bits: FP32 is narrower than FP64, so it would round FP64's "
     'values, not keep their sum.'),
    ('summation_method', lambda: summation.sum_values(np.ones(2), F16, np.array([2]), ("fancy",)),
     "'fancy' is not a summation method; choose from naive, fp32, pairwise, kahan."),
    ('not_summed', lambda: summation.summable("nf4x"),
     "'nf4x' is not a format summed here; choose one of float64, float32, float16, bfloat16, float8_e4m3fn, "
     'float8_e5m2.'),
    ('dot_format', lambda: checked_dot_format("float64"),
     "'float64' is not a format for the dot product; choose one of float8_e4m3fn, float8_e5m2, float16, bfloat16, "
     'tfloat32, float32.'),
    ('dot_method', lambda: checked_dot_method("sorted", "float16"),
     "'sorted' is not a dot-product method; choose from input_format, fp32, promoted, pairwise, kahan, v100, a100, "
     'h100, b200.'),
    ('dot_method_format', lambda: checked_dot_method("v100", "bfloat16"),
     "'v100' does not take bfloat16; for bfloat16 choose from input_format, fp32, promoted, pairwise, kahan, a100, "
     'h100, b200.'),
    ('dot_lengths', lambda: dot_product("float16", [1, 2], [1], ["fp32"]),
     'Vector a has 2 numbers and vector b 1; a dot product needs as many in each.'),
    ('dot_too_long', lambda: dot_product("float16", [1] * 4097, [1] * 4097, ["fp32"]),
     'The vectors have 4097 numbers each; from 1 to 4096 are taken.'),
    ('dot_promote_every', lambda: dot_product("float16", [1], [1], ["promoted"], 0),
     'promote_every must be a whole number from 1 to 4096; 0 is not.'),
    ('dot_step', lambda: dot_steps.step_bits(dot_product("float16", [1], [1], ["fp32"]), "fp32", 2),
     'step runs from 1 to 1, the length of the vectors; 2 is not.'),
    ('dot_setting', lambda: dot_inputs.parse_dot_setting("x", "seed", 0, 9),
     "seed must be a whole number from 0 to 9; 'x' is not."),
    ('dot_vector_text', lambda: dot_inputs.parse_vector("1" * 262145, "a"),
     'Vector a is 262145 characters long; at most 262144 are read.'),
    ('dot_vector_empty', lambda: dot_inputs.parse_vector(" , ", "b"),
     'Vector b is empty; type numbers separated by commas or spaces.'),
    ('dot_vector_count', lambda: dot_inputs.parse_vector("1 " * 4097, "a"),
     'Vector a has 4097 numbers; at most 4096 are taken.'),
    ('dot_vector_item', lambda: dot_inputs.parse_vector("1 x", "a"),
     "Number 2 of vector a, 'x', is not a number; write decimals such as 0.5 or -1.25e-3, hex floats such as "
     '0x1.8p-3, or fractions such as 1/3.'),
    ('dot_vector_item_length', lambda: dot_inputs.parse_vector_items(["1", "2" * 1101], "a"),
     'Number 2 of vector a is 1101 characters long; at most 1100 are read.'),
    ('dot_vector_finite', lambda: dot_inputs.parse_vector("inf", "b"),
     "Number 1 of vector b is 'inf'; a dot product here takes finite numbers only."),
    ('dot_distribution', lambda: dot_inputs.drawn_vectors("float16", "cauchy", 4, 0),
     "'cauchy' is not a distribution here; choose from normal, uniform, lognormal, outliers."),
    ('dot_draw_range', lambda: dot_inputs.drawn_vectors("float16", "normal", 0, 0),
     'n runs from 1 to 4096 and the seed from 0 to 4294967295.'),
    ('dot_one_vector', lambda: dot_inputs.vectors("float16", [], None, "normal", 4, 0),
     'Give both vectors, a and b, or neither to draw them from a distribution.'),
    ('operation', lambda: arithmetic.operation("pow"),
     "Unknown operation 'pow'; choose one of: add, sub, mul, div, sqrt, fma."),
    ('chain_step_op', lambda: arithmetic_chain.chain_step("fma", None),
     "A chain's step takes the running value and one operand: add, sub, mul, div, sqrt; fma is not one of them."),
    ('chain_step_operand', lambda: arithmetic_chain.chain_step("add", None),
     'Each step of a chain but sqrt needs one operand, as in add:0.1; sqrt takes none.'),
    ('chain_length', lambda: arithmetic_chain.run_chain(
        Real.of(0), (arithmetic_chain.ChainStep("add", Real.of(1)),) * 33, F16),
     'A chain has at most 32 steps; this one has 33.'),
]
