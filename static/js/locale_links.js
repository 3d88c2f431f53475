// What the language switcher links to, as app/web/platform/languages.py `switch_links` makes it (held to it by
// tests/browser/test_languages_live.py): the same path and query under another language's prefix; a home page
// through /?lang=<code>, which remembers the choice.

/** The switcher's href for `code` (prefix `to`) on the page at `pathname` + `search` in the language of prefix
 *  `here`; null where the address is not one of this language's pages. */
export function switchHref(pathname, search, here, to, code) {
  let path = pathname;
  if (here) {
    if (path !== here && !path.startsWith(`${here}/`)) return null;
    path = path.slice(here.length) || "/";
  }
  if (path === "/") return `/?lang=${code}`;
  return `${to}${path}${search}`;
}
