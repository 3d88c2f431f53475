// The rounding modes and overflow policies of the browser's codec (app/formats/rounding.py): their names, the
// refusal of an unknown one, and the one decision every encoder asks, whether a remainder rounds up. Part of the
// codec (codec.js re-exports what the pages use).

import { InputError } from "./codec_values.js";
import { codePoints, quoted } from "./codec_quote.js";
import { MersenneTwister } from "./mt19937.js";

export const ROUNDINGS = ["nearest_even", "nearest_away", "toward_zero", "toward_positive", "toward_negative",
  "stochastic"];
export const OVERFLOW_POLICIES = ["format_default", "saturate"];

export function roundingMode(name) {
  if (!ROUNDINGS.includes(name)) {
    throw new InputError("Unknown rounding %(input)s; choose one of: %(modes)s.",
      { input: quoted(codePoints(name).slice(0, 40).join("")), modes: ROUNDINGS.join(", ") });
  }
  return name;
}

export function overflowPolicy(name) {
  if (!OVERFLOW_POLICIES.includes(name)) {
    throw new InputError("Unknown overflow policy %(input)s; choose one of: %(policies)s.",
      { input: quoted(codePoints(name).slice(0, 40).join("")), policies: OVERFLOW_POLICIES.join(", ") });
  }
  return name;
}

/** Whether |x| = q + remainder/divisor (0 < remainder < divisor) rounds to q + 1 rather than q. */
export function roundsUp(mode, negative, remainder, divisor, lowerIsEven, rng) {
  if (mode === "toward_zero") return false;
  if (mode === "toward_positive") return !negative;
  if (mode === "toward_negative") return negative;
  if (mode === "stochastic") {
    if (rng && rng.draw) return rng.draw(remainder, divisor); // a draw given, as stochasticOdds asks each way
    return (rng || new MersenneTwister(0n)).getrandbits64() * divisor < remainder << 64n;
  }
  const twice = 2n * remainder;
  if (twice !== divisor) return twice > divisor;
  return mode === "nearest_away" || !lowerIsEven;
}

export const roundsTowardZero = (mode, negative) => mode === "toward_zero"
  || (mode === "toward_positive" && negative) || (mode === "toward_negative" && !negative);
