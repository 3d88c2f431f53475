// The site's addresses as the server writes them: one quote and one builder for every script that links to a page
// (app/web/visualise/present.py visualise_url, blocks.pages.block_url).

/** Python's urllib.parse.quote(text, safe=""), UTF-8. */
export const quote = (text) => encodeURIComponent(text)
  .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** present.visualise_url: choices at their defaults stay out of the query. */
export function visualiseUrl(id, { value, bits, rounding, overflow, seed, prefix = "", layout = [] }) {
  const query = [...layout, ["value", value], ["bits", bits],
    ["rounding", rounding === "nearest_even" ? null : rounding],
    ["overflow", overflow === "format_default" ? null : overflow], ["seed", seed]];
  const params = query.filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => `${k}=${quote(String(v))}`);
  return `${prefix}/visualise/${id}${params.length ? `?${params.join("&")}` : ""}`;
}

/** arithmetic.present.arithmetic_url: the lab with this state, choices at their defaults and empty fields left out. */
export function arithmeticUrl(prefix, pairs) {
  const defaults = { rounding: "nearest_even", overflow: "format_default" };
  const params = pairs.filter(([k, v]) => v !== null && v !== undefined && v !== "" && v !== defaults[k])
    .map(([k, v]) => `${k}=${quote(String(v))}`);
  return `${prefix}/arithmetic${params.length ? `?${params.join("&")}` : ""}`;
}
