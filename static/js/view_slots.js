// Filling the server's markup, the one-markup pattern of the instant views (/compare, the block visualiser): the
// templates write every node a view has (templates/_view_slots.html its slots), every variant that the value may
// call for (hidden where it does not apply), the first item of each list, and in <template> elements the words a
// script writes; a view's render writes text and attributes into those nodes, shows the variants that apply and
// clones the server's item for each item of a list. Nothing here builds markup from a string.

/** Write `text` into a node, where it differs (so that an unchanged view touches nothing). */
export function setText(node, text) {
  const said = String(text);
  if (node.textContent !== said) node.textContent = said;
}

/** Set an attribute, or remove it for null, where it differs. */
export function setAttr(node, name, value) {
  if (value === null) node.removeAttribute(name);
  else if (node.getAttribute(name) !== String(value)) node.setAttribute(name, value);
}

/** A shown value ({text, full}; null for none, "—") into a span of _view_slots.html's num: its text, and its
 * exact value in a title where the text is shortened. */
export function setNum(node, v) {
  setText(node, v === null ? "—" : v.text);
  setAttr(node, "title", v !== null && v.text !== v.full ? v.full : null);
}

/** Each [data-slot] under `root` whose name `values` has: a shown value ({text, full} or null) or text. */
export function fillSlots(root, values) {
  for (const node of root.querySelectorAll("[data-slot]")) {
    const name = node.dataset.slot;
    if (!(name in values)) continue;
    const v = values[name];
    if (v === null || typeof v === "object") setNum(node, v);
    else setText(node, v);
  }
}

/** Show each variant under `root` that its condition in `conditions` calls for: [data-if="name"] where it holds,
 * [data-unless="name"] where it does not. */
export function showVariants(root, conditions) {
  for (const node of root.querySelectorAll("[data-if], [data-unless]")) {
    const name = node.dataset.if ?? node.dataset.unless;
    const hidden = (node.dataset.if !== undefined) !== Boolean(conditions[name]);
    if (node.hidden !== hidden) node.hidden = hidden;
  }
}

/** The words the server wrote for a script under `root` (<template data-words>, a [data-word] span each), by id. */
export function wordsOf(root) {
  const words = new Map();
  for (const template of root.querySelectorAll("template[data-words]")) {
    for (const word of template.content.querySelectorAll("[data-word]")) words.set(word.dataset.word, word.textContent);
  }
  return words;
}

/** The first element of a <template>'s content, for cloning. */
export const prototypeOf = (template) => template.content.firstElementChild;

/** `container`'s element children made `count` long (at least one, as the server wrote it): the last removed, or
 * clones of the first added, each to be filled as the others are. */
export function sized(container, count) {
  while (container.children.length > count) container.lastElementChild.remove();
  const first = container.firstElementChild;
  while (container.children.length < count) container.append(first.cloneNode(true));
  return [...container.children];
}

/** A pattern's bit runs (a span a field, as _block_result.html's bit_runs writes them): each field's bits as text,
 * a 1 in a clone of `one` (the bold 1 of the template data-one that _block_result.html writes); a field left as it
 * is where its bits did not change. */
export function setBitRuns(runs, groups, one) {
  groups.forEach((group, i) => {
    const field = runs.children[i];
    if (field.textContent === group.cells) return;
    field.replaceChildren(...Array.from(group.cells, (bit) => (bit === "1" ? one.cloneNode(true) : bit)));
  });
}
