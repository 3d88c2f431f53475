// The browser's arithmetic core (static/js/arithmetic_core.js) answering in Node what
// tests/js/test_arithmetic_parity.py asks, each case one string of fields ("\x1f" apart), as the Python reference
// (app/formats/arithmetic.py) makes them; a batch is answered by the digest of each unit's strings, and only a unit
// that differs in full.

import { createHash } from "node:crypto";

import * as chain from "../../static/js/arithmetic_chain.js";
import * as core from "../../static/js/arithmetic_core.js";
import { rule } from "../../static/js/arithmetic_rules.js";
import * as codec from "../../static/js/codec.js";

let byKey = {};
const storedOf = new Map(); // every pattern of a format, stored (as the Python side stores them), worked out once

/** The specifications by key ([[key, codec spec], ...]). */
export function setup(specs) {
  byKey = Object.fromEntries(specs);
  storedOf.clear();
  return specs.length;
}

/** An operation's fields: the operands as stored, the result, the exact result and its rule, the flags. */
function described(done) {
  const [text, exact] = codec.realText(done.exact.value), r = done.result;
  return [done.operands.map((o) => o.encoding.hex).join(" "), r.encoding.hex, text, exact, done.exact.rational,
    done.exact.special ?? "None", r.overflowed, r.underflowed, done.flags.join(",")].join("\x1f");
}

/** described, and the rule's sentence: its template and its English ("error" and why, where it fails). */
function ruled(done, rounding) {
  let said;
  try {
    const phrase = rule(done, rounding);
    said = [phrase.template, String(phrase)];
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    said = ["error", error.message];
  }
  return [described(done), ...said].join("\x1f");
}

function patterns(key) {
  if (!storedOf.has(key)) {
    const spec = byKey[key];
    storedOf.set(key, Array.from({ length: 2 ** spec.bits },
      (_, bits) => codec.encodeValue(spec, codec.decode(spec, BigInt(bits)).value)));
  }
  return storedOf.get(key);
}

/** Every pattern `a` of the rows with every pattern b as its second operand (`op` binary), or alone (sqrt), in
 * each [mode, policy] of `combos`: one list of strings per row. */
export function rows(key, op, combos, firsts) {
  const spec = byKey[key], stored = patterns(key);
  return firsts.map((a) => {
    const pairs = op === "sqrt" ? [[stored[a]]] : stored.map((b) => [stored[a], b]);
    return pairs.flatMap((operands) => combos.map(([mode, policy]) =>
      described(core.apply(op, operands, spec, mode, policy, null))));
  });
}

/** Each unit [op, [patterns]] applied to the stored patterns of `key`'s format, in each [mode, policy]. */
export function patterned(key, combos, units) {
  const spec = byKey[key], stored = patterns(key);
  return units.map(([op, bits]) => combos.map(([mode, policy]) =>
    ruled(core.apply(op, bits.map((b) => stored[b]), spec, mode, policy, null), mode)));
}

/** Each unit [op, [operand texts], seed text or null] operated on: the operands stored in `key`'s format, the
 * result in `resultKey`'s, in each [mode, policy] of `combos`. */
export const operated = (key, resultKey, combos, units) => units.map(([op, texts, seed]) => combos.map(
  ([mode, policy]) => ruled(core.operate(op, texts.map(codec.parseValue), byKey[key], byKey[resultKey], mode,
    policy, seed === null ? null : BigInt(seed)), mode)));

/** Each unit [start text, [[op, operand text or null], ...], seed text] run as a chain in each [mode, policy]:
 * the start as stored, then each step (with its rule) beside the exact chain after it. */
export const chains = (key, resultKey, combos, units) => units.map(([start, steps, seed]) => combos.flatMap(
  ([mode, policy]) => {
    const run = chain.runChain(codec.parseValue(start), steps.map(([op, operand]) => chain.chainStep(op,
      operand === null ? null : codec.parseValue(operand))), byKey[key], byKey[resultKey], mode, policy, BigInt(seed));
    return [`${run.start.encoding.hex}\x1f${run.result.encoding.hex}`, ...run.steps.map((done, i) => {
      const exact = run.exact[i], [text, isExact] = codec.realText(exact.value);
      return [ruled(done, mode), text, isExact, exact.rational, exact.special ?? "None"].join("\x1f");
    })];
  }));

/** The SHA-256 of each unit's answer to `call` (a unit's strings "\x1e" apart). */
export const digests = (call, ...args) => ({ rows, patterned, operated, chains })[call](...args).map((unit) =>
  createHash("sha256").update(unit.join("\x1e")).digest("hex"));

/** The sentence `call` refuses its arguments with, or what it accepted: an operation's name, a chain's step as a
 * URL writes it (its operation and operand), a chain of many steps. */
export function refusal(call, ...args) {
  try {
    if (call === "operation") return core.operation(...args);
    if (call === "chainStep") {
      const step = chain.parseChainStep(...args);
      return `${step.op} ${step.operand === null ? "None" : codec.realText(step.operand).join(" ")}`;
    }
    const [start, steps, key] = args;
    return chain.runChain(codec.parseValue(start), steps.map(([op, operand]) => chain.chainStep(op,
      operand === null ? null : codec.parseValue(operand))), byKey[key]).result.encoding.hex;
  } catch (error) {
    if (!(error instanceof codec.InputError)) throw error;
    return error.message;
  }
}
