// Quoting typed text in a refusal, as app/refusal.py's quoted() does: Python's repr() with one fixed table of
// escaped characters. Part of the codec (codec.js re-exports quoted).

export const codePoints = (text) => Array.from(text);

// What a refusal escapes when it quotes typed text: app/refusal.py's ESCAPED_RANGES (Unicode 14's controls, format
// characters, surrogates, private use and separators but the space, and the noncharacters), the same fixed table, so
// that the browser's Unicode version changes nothing (tests/unit/test_quoting.py holds the two alike)
const ESCAPED_RANGES = [
  [0x0, 0x1f], [0x7f, 0xa0], [0xad, 0xad], [0x600, 0x605], [0x61c, 0x61c],
  [0x6dd, 0x6dd], [0x70f, 0x70f], [0x890, 0x891], [0x8e2, 0x8e2], [0x1680, 0x1680],
  [0x180e, 0x180e], [0x2000, 0x200f], [0x2028, 0x202f], [0x205f, 0x2064], [0x2066, 0x206f],
  [0x3000, 0x3000], [0xd800, 0xf8ff], [0xfdd0, 0xfdef], [0xfeff, 0xfeff], [0xfff9, 0xfffb],
  [0xfffe, 0xffff], [0x110bd, 0x110bd], [0x110cd, 0x110cd], [0x13430, 0x13438], [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a], [0x1fffe, 0x1ffff], [0x2fffe, 0x2ffff], [0x3fffe, 0x3ffff], [0x4fffe, 0x4ffff],
  [0x5fffe, 0x5ffff], [0x6fffe, 0x6ffff], [0x7fffe, 0x7ffff], [0x8fffe, 0x8ffff], [0x9fffe, 0x9ffff],
  [0xafffe, 0xaffff], [0xbfffe, 0xbffff], [0xcfffe, 0xcffff], [0xdfffe, 0xdffff], [0xe0001, 0xe0001],
  [0xe0020, 0xe007f], [0xefffe, 0x10ffff],
];
const escapedCode = (code) => ESCAPED_RANGES.some(([first, last]) => first <= code && code <= last);

/** A string quoted as app/refusal.py's quoted() does: Python's repr() with a fixed table of escaped characters. */
export function quoted(text) {
  const mark = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escapes = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", [mark]: `\\${mark}` };
  let out = mark;
  for (const c of text) {
    const code = c.codePointAt(0);
    if (escapes[c]) out += escapes[c];
    else if (code === 0x20 || !escapedCode(code)) out += c;
    else if (code <= 0xff) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return out + mark;
}

/** The first 40 characters of typed text, quoted (an ellipsis where there were more). */
export const quotedHead = (text) => {
  const points = codePoints(text);
  return quoted(points.length <= 40 ? text : `${points.slice(0, 40).join("")}…`);
};
