// A chain of operations in the browser, as app/formats/arithmetic_chain.py runs it (the reference; held to it by
// tests/js/test_arithmetic_parity.py): a tape that starts from one stored value, each step an operation on the
// running result and one new operand (none for sqrt), each result rounded to the result format. Beside it runs the
// exact chain, the same operations on the same stored operands with no rounding between them, so the drift of the
// rounded one shows.

import { apply, exactResult, operation } from "./arithmetic_core.js";
import { encodeDrawn, randomSeed } from "./codec.js";
import { SPACES, parseNumber } from "./codec_parse.js";
import { roundingMode } from "./codec_rounding.js";
import { InputError } from "./codec_values.js";
import { MersenneTwister } from "./mt19937.js";

export const MAX_STEPS = 32;
export const CHAIN_OPERATIONS = ["add", "sub", "mul", "div", "sqrt"]; // one running value, at most one operand

/** A step of a chain, {op, operand} (operand null for sqrt); an InputError for an operation a chain does not take
 * or a missing or extra operand. */
export function chainStep(op, operand) {
  const name = operation(op);
  if (!CHAIN_OPERATIONS.includes(name)) {
    throw new InputError("A chain's step takes the running value and one operand: %(ops)s; %(input)s is not one of "
      + "them.", { ops: CHAIN_OPERATIONS.join(", "), input: op });
  }
  if ((operand === null) !== (name === "sqrt")) {
    throw new InputError("Each step of a chain but sqrt needs one operand, as in add:0.1; sqrt takes none.");
  }
  return { op: name, operand };
}

/** Python's str.strip(): its whitespace off both ends. */
function strip(text) {
  let start = 0, end = text.length;
  while (start < end && SPACES.includes(text[start])) start++;
  while (end > start && SPACES.includes(text[end - 1])) end--;
  return text.slice(start, end);
}

/** A step as a URL writes it: `add:0.1`, `mul:3`, `sqrt`. */
export function parseChainStep(text) {
  const trimmed = strip(text), colon = trimmed.indexOf(":");
  if (colon < 0) return chainStep(strip(trimmed), null);
  return chainStep(strip(trimmed.slice(0, colon)), parseNumber(trimmed.slice(colon + 1)));
}

/** Store `start` and each operand in `spec`, then do each step on the running value, rounding each result to
 * `resultSpec` (`spec` when null): {start, steps, exact, result}, `exact` the exact chain after each step. One
 * stochastic generator of `seed` draws for the start, then for each step's operand and result in turn. */
export function runChain(start, steps, spec, resultSpec = null, rounding = "nearest_even",
  overflow = "format_default", seed = null) {
  if (steps.length > MAX_STEPS) {
    throw new InputError("A chain has at most %(most)s steps; this one has %(count)s.",
      { most: String(MAX_STEPS), count: String(steps.length) });
  }
  resultSpec ??= spec;
  const rng = roundingMode(rounding) === "stochastic" ? new MersenneTwister(seed ?? randomSeed()) : null;
  const first = encodeDrawn(spec, start, rounding, overflow, rng);
  let running = first, exact = { value: first.encoding.value, rational: true, special: null };
  const done = [], exacts = [];
  for (const step of steps) {
    const operand = step.operand === null ? [] : [encodeDrawn(spec, step.operand, rounding, overflow, rng)];
    done.push(apply(step.op, [running, ...operand], resultSpec, rounding, overflow, rng));
    running = done[done.length - 1].result;
    const following = exactResult(step.op, [exact.value, ...operand.map((o) => o.encoding.value)], rounding,
      resultSpec);
    exact = { value: following.value, rational: exact.rational && following.rational, special: following.special };
    exacts.push(exact);
  }
  return { start: first, steps: done, exact: exacts, result: running };
}
