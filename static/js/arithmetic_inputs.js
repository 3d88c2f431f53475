// What the arithmetic lab reads from its form, as app/web/arithmetic/inputs.py and pages.py read a query: the
// operands an operation takes (a number, or a bit pattern of the operands' format for the value it holds), and the
// tape that continues it; each refused with the server's sentence.

import { ARITY, operation } from "./arithmetic_core.js";
import { CHAIN_OPERATIONS, MAX_STEPS, parseChainStep } from "./arithmetic_chain.js";
import { InputError, decode, parseBits, parseValue } from "./codec.js";
import { typedNumber } from "./decimal_comma.js";
import { Phrase } from "./words.js";

const NAMES = ["a", "b", "c"];

/** An inner refusal's sentence as a parameter of the outer one (inputs._why). */
const why = (error) => new Phrase(error.phrase.template, error.phrase.params);

/** inputs.operands: the values `op` takes from `texts` (a, b, c as typed), read in `spec`. */
export function operands(op, texts, spec) {
  const needed = ARITY[operation(op)], values = [];
  for (const [i, name] of NAMES.slice(0, needed).entries()) {
    const text = texts[i];
    if (text === null || text.trim() === "") {
      throw new InputError("%(op)s needs %(names)s: %(name)s is missing.",
        { op, names: NAMES.slice(0, needed).join(", "), name });
    }
    try {
      const parsed = parseValue(typedNumber(text)); // 0,1 on a Turkish page
      values.push(parsed.raw ? decode(spec, parseBits(parsed.text, spec)).value : parsed);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      throw new InputError("%(name)s: %(why)s", { name, why: why(error) });
    }
  }
  return values;
}

/** pages._tape: the operation's own step (b its operand), then the steps typed (empty ones dropped). */
export function tape(op, b, steps) {
  if (!CHAIN_OPERATIONS.includes(op)) {
    throw new InputError("A chain continues add, sub, mul, div or sqrt; fma takes three operands, so start the "
      + "chain from its result instead.");
  }
  const texts = [op === "sqrt" ? op : `${op}:${typedNumber(b)}`, ...steps.map((s) => typedNumber(s))];
  if (texts.length > MAX_STEPS) {
    throw new InputError("A chain has at most %(most)s steps; this one has %(count)s.",
      { most: String(MAX_STEPS), count: String(texts.length) });
  }
  return texts.map((text, i) => {
    try {
      return parseChainStep(text);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      throw new InputError("Step %(number)s: %(why)s", { number: String(i + 1), why: why(error) });
    }
  });
}
