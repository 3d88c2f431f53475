// The browser's exact codec (static/js/codec.js) timed in Node, as bench_js_codec.py times it in Chromium: the
// operations per second of a decode or an encode, cycling through the patterns or inputs given.

import * as codec from "../static/js/codec.js";

let byId = {};

function rate(step, count, seconds) {
  let done = 0;
  const start = performance.now(), end = start + seconds * 1000;
  while (performance.now() < end) for (let i = 0; i < 64; i++) step(done++ % count);
  return done / ((performance.now() - start) / 1000);
}

export function setup(specs) {
  byId = Object.fromEntries(specs.map((s) => [s.id, s]));
  return specs.length;
}

export function decode(id, patterns, seconds) {
  const spec = byId[id], bits = patterns.map(BigInt);
  return rate((i) => codec.decode(spec, bits[i]).exactString, bits.length, seconds);
}

export const encode = (id, inputs, seconds) => rate((i) => {
  const r = codec.encode(byId[id], inputs[i]).rounded;
  return [codec.realText(r.input), codec.realText(r.error), r.relErrorText];
}, inputs.length, seconds);
