// The page's words (app/web/train/words.py): templates/train.html carries each sentence the training scripts write,
// in the page's language, and each recipe's name. `say` fills a sentence's {name} slots; a sentence the page does
// not carry is said in English.

const block = document.querySelector("[data-train-words]");
const words = block ? JSON.parse(block.textContent) : { sentences: {}, recipes: {} };

export function say(sentence, slots = {}) {
  return (words.sentences[sentence] ?? sentence).replace(/\{(\w+)\}/g, (_, name) => String(slots[name]));
}

// A recipe's name in the page's language (the run's events give it in English).
export const recipeName = (id, english) => words.recipes[id] ?? english;

// Whether the page is in English: a sentence of the server's (a refusal) is, and says so on another page.
export const englishPage = () => document.documentElement.lang === "en";
