// The browser's exact codec (static/js/codec.js) and its generator (mt19937.js) answering in Node what
// tests/js/test_codec_parity.py asks, each case one string of fields ("\x1f" apart), as the Python reference
// makes them; a batch is answered by the digest of each unit's strings, and only a unit that differs in full.

import { createHash } from "node:crypto";

import * as codec from "../../static/js/codec.js";
import { MersenneTwister } from "../../static/js/mt19937.js";

let byKey = {}, combos = [];

// codec.shown of a value object, worked out once per object: a pure function of the value, and one input's value
// and error are the same objects in every mode
const shownOf = new WeakMap();
function shown(v, limit = codec.SHORT_LENGTH, digits = 7) {
  let known = shownOf.get(v);
  if (!known) shownOf.set(v, (known = new Map()));
  const key = `${limit} ${digits}`;
  if (!known.has(key)) known.set(key, codec.shown(v, limit, digits).text);
  return known.get(key);
}

const text = (x) => (x === null || x === undefined ? "None" : String(x));
const exact = (x) => (x === null ? "None" : codec.exactString(x));

function floatBits(x) {
  if (x === null) return "None";
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16).padStart(16, "0");
}

function decoded(enc) {
  const up = codec.nextUp(enc), down = codec.nextDown(enc), gap = codec.ulp(enc);
  return [enc.hex, enc.binary, enc.cls, enc.exactString, text(enc.sign), text(enc.exponentField),
    text(enc.mantissaField), text(enc.exponent), exact(enc.significand), up ? up.exactString : "None",
    down ? down.exactString : "None", exact(gap), codec.shown(enc.value, 60, 17).text, codec.shown(enc.value).text,
    gap === null ? "None" : codec.shown(gap).text].join("\x1f");
}

function stored(spec, input, mode, policy, seed) {
  let answer;
  try {
    answer = codec.encode(spec, input, mode, policy, seed);
  } catch (error) {
    if (!(error instanceof codec.InputError)) throw error;
    return "refused\x1f" + error.message;
  }
  const enc = answer.encoding, r = answer.rounded;
  if (!r) return ["raw", enc.hex, enc.cls, enc.exactString].join("\x1f");
  const [given, givenExact] = codec.realText(r.input), [error, errorExact] = codec.realText(r.error);
  return [enc.hex, enc.cls, enc.exactString, given, givenExact, error, errorExact, floatBits(r.relError),
    r.relErrorText, r.overflowed, r.underflowed, text(r.note), shown(r.input, 4000), shown(r.error, 4000),
    codec.shown(enc.value, 60, 17).text, shown(r.input), shown(r.error), codec.shown(enc.value).text].join("\x1f");
}

/** The specifications by key ([[key, codec spec], ...]) and the [mode, policy] pairs every input meets. */
export function setup(specs, pairs) {
  byKey = Object.fromEntries(specs);
  combos = pairs;
  return specs.length;
}

/** One string per pattern (decimal text), as the reference makes them. */
export const decode = (key, patterns) => patterns.map((p) => decoded(codec.decode(byKey[key], BigInt(p))));

/** One list per [input, seed]: the input stored in each of the combos. */
export const encode = (key, inputs) => inputs.map(([input, seed]) => combos.map(([mode, policy]) =>
  stored(byKey[key], input, mode, policy, seed)));

/** The SHA-256 of each unit's answer to `call` (a unit's strings "\x1e" apart): the reference's strings run to
 * megabytes (exact values of thousands of digits, in every mode), which a digest spares the pipe. */
export const digests = (call, ...args) => ({ decode, encode })[call](...args).map((unit) =>
  createHash("sha256").update([unit].flat().join("\x1e")).digest("hex"));

/** The sentence a call refuses with, or "accepted". */
export function refusal(call, args) {
  try {
    codec[call](...args);
    return "accepted";
  } catch (error) {
    if (!(error instanceof codec.InputError)) throw error;
    return error.message;
  }
}

/** getrandbits(64) `count` times from a generator of each seed, as decimal text. */
export const draws = (seeds, count) => seeds.map((seed) => {
  const mt = new MersenneTwister(BigInt(seed));
  return Array.from({ length: count }, () => mt.getrandbits64().toString());
});
