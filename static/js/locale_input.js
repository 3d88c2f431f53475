// A number typed on a page in a language that writes a decimal comma (0,1 in Turkish and Greek), made the notation
// the codec reads (0.1): the same rule as app/web/platform/locale_input.py `typed_number` (held to it by
// tests/browser/test_languages_live.py), for the pages' script to apply before codec.js parses typed text.
// Only a plain decimal with exactly one comma and no point changes; a list of values never comes here.
// Whether the page's language writes one, base.html says on <html> (data-decimal-comma).

const COMMA_DECIMAL = /^\s*[+\-\u2212]?(?:[0-9]+,[0-9]*|,[0-9]+)(?:[eE][+\-\u2212]?[0-9]+)?\s*$/;

/** `text` with its decimal comma made a point where the page's language writes a comma (`decimalComma`). */
export function typedNumber(text, decimalComma = document.documentElement.hasAttribute("data-decimal-comma")) {
  return decimalComma && COMMA_DECIMAL.test(text) ? text.replace(",", ".") : text;
}
