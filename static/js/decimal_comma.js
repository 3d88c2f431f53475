// A number typed on a page in a language that writes a decimal comma (0,1 in Turkish and Greek), made the notation
// the codec reads (0.1): the same rule as app/web/platform/decimal_comma.py `typed_number` (held to it by
// tests/browser/test_languages_live.py), for the pages' script to apply before codec.js parses typed text.
// Only a plain decimal with exactly one comma and no point changes. A list of values (the block visualiser's box)
// is read by `typedList`, decimal_comma.py's `typed_list` (held to it by tests/browser/test_block_instant.py).
// Whether the page's language writes one, base.html says on <html> (data-decimal-comma).

import { SPACES } from "./codec.js";

// (\s as Python's re.ASCII has it: [ \t\n\r\f\v], not JavaScript's, which has \u00a0, \ufeff and more)
const COMMA_DECIMAL = /^[ \t\n\r\f\v]*[+\-\u2212]?(?:[0-9]+,[0-9]*|,[0-9]+)(?:[eE][+\-\u2212]?[0-9]+)?[ \t\n\r\f\v]*$/;
const LIST_MODE = /[;\n]/; // what makes a list's commas decimal commas
// `;` and Python's \s (str.isspace), what typed_list splits such a list on
const LIST_SEPARATORS = new RegExp(`[;${SPACES}]+`);

const commaPage = () => document.documentElement.hasAttribute("data-decimal-comma");

/** `text` with its decimal comma made a point where the page's language writes a comma (`decimalComma`). */
export function typedNumber(text, decimalComma = commaPage()) {
  return decimalComma && COMMA_DECIMAL.test(text) ? text.replace(",", ".") : text;
}

/** A list of values typed where the language writes a decimal comma (`decimalComma`), in the notation the block
 * reader splits: if it holds a `;` or a new line, its items (split on those and on spaces) each read by
 * typedNumber and joined by ", "; else `text` as typed. */
export function typedList(text, decimalComma = commaPage()) {
  if (!decimalComma || !LIST_MODE.test(text)) return text;
  return text.split(LIST_SEPARATORS).filter((item) => item).map((item) => typedNumber(item, true)).join(", ");
}
