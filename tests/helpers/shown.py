"""A page's elements as a person meets them: the variants a view renders hidden (templates/_visualise_*.html, for
its script to show when the value calls for them) left out, with everything inside them."""

from __future__ import annotations

from tests.helpers.html import Elements


class Shown(Elements):
    """Elements, but those under a `hidden` attribute (their own or an ancestor's) are not found."""

    def visible(self, index: int) -> bool:
        return all("hidden" not in self.tags[at][1] for at in (*self.parents[index], index))

    def having(self, attribute: str) -> list[dict[str, str]]:
        return [attrs for index, (_, attrs) in enumerate(self.tags) if attribute in attrs and self.visible(index)]

    def texts_of(self, attribute: str) -> list[str]:
        return [" ".join(self.texts[index].split()) for index, (_, attrs) in enumerate(self.tags)
                if attribute in attrs and self.visible(index)]

    def text_of(self, attribute: str) -> str:
        return self.texts_of(attribute)[0]
