// The page's words for the scripts that write sentences into it (the visualiser, the comparison, the block view and
// the codec's refusals and notes). Each sentence is written here in English, in the catalogs' own form: a gettext
// id with %(name)s slots, as the templates and the formats core have it. A page in another language carries each
// one's translation in its JSON (app/web/platform/script_words.py, from the ids `make` finds in these scripts as
// `make messages` does, when it bundles them); `learn` takes them in, and a sentence the page does not carry is
// said in English.
//
// Translations are the catalog's, trusted as the templates trust them: a caller writing HTML escapes the values
// it fills in. So that the build can find every id, write say(...), sayN(...), new Phrase(...) and
// new InputError(...) with plain string literals, never inside a template literal's ${...}
// (tests/unit/test_script_words.py checks it).

const sentences = new Map();
const plurals = new Map(); // the singular id -> [its form for 1, its form for any other count]

/** Take in the words a page's JSON carries: {sentences: {id: translation}, plurals: {id: [one, other]}}. */
export function learn(words) {
  for (const [id, text] of Object.entries(words?.sentences ?? {})) sentences.set(id, text);
  for (const [id, forms] of Object.entries(words?.plurals ?? {})) plurals.set(id, forms);
}

/** Whether the page is in English: a sentence of the server's (a refusal) is, and says so on another page. */
export const englishPage = () => document.documentElement.lang === "en";

/** Python's `template % params` for %(name)s slots and %%. */
function fill(template, params = {}) {
  return template.replace(/%(?:\((\w+)\)s|%)/g, (all, name) => (name === undefined ? "%" : String(params[name])));
}

/** The sentence `id` in the page's language, its slots filled (a Phrase among the values said too). */
export function say(id, params = {}) {
  const values = {};
  for (const [name, value] of Object.entries(params)) values[name] = value instanceof Phrase ? value.said : value;
  return fill(sentences.get(id) ?? id, values);
}

/** ngettext: the sentence for `count` things, its slots filled (count among them as %(count)s). */
export function sayN(singular, plural, count, params = {}) {
  const forms = plurals.get(singular) ?? [singular, plural];
  return fill(forms[count === 1 ? 0 : 1], { count, ...params });
}

/** A number in running text as the page's language writes it: with a decimal comma where it writes one (97,3 in
 * Turkish and Greek, as the server's `|decimal`); exact values and bit patterns never go through it. */
export function proseNumber(text) {
  const comma = document.documentElement.hasAttribute("data-decimal-comma");
  return comma ? String(text).replace(/([0-9])\.([0-9])/, "$1,$2") : String(text);
}

/** Words with slots that travel before they are said (app/messages.py's Phrase): as a string, the English. */
export class Phrase {
  constructor(template, params = {}) {
    Object.assign(this, { template, params });
  }

  toString() { return fill(this.template, this.params); } // a Phrase among the values is written in English too

  get said() { return say(this.template, this.params); }
}
