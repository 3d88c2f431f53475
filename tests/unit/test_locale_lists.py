"""A list of values typed on a page in a decimal-comma language (the block visualiser's box): `;` or new lines
separate its values there, and each value may have a decimal comma; any other list is left for the core as typed."""

from __future__ import annotations

import pytest

from app.web.platform.decimal_comma import typed_list
from app.web.platform.languages import SERVED


@pytest.mark.parametrize("code", ["tr", "el"])
def test_semicolons_or_lines_separate_decimal_comma_values(code):
    language = SERVED[code]
    assert typed_list("0,1; -2,5; 3", language) == "0.1, -2.5, 3"
    assert typed_list("0,1\n0,25\n,5", language) == "0.1, 0.25, .5"
    assert typed_list("0,1 0,2; 1,5e-3", language) == "0.1, 0.2, 1.5e-3"  # spaces separate too, in this mode
    assert typed_list("1, 2, 3", language) == "1, 2, 3"  # no ; and no new line: commas separate, as in English
    assert typed_list("nan; inf; 1/3", language) == "nan, inf, 1/3"


@pytest.mark.parametrize("code", ["en", "yo"])
def test_a_language_that_writes_a_decimal_point_keeps_the_list_as_typed(code):
    for text in ["0,1; 2", "1, 2\n3", "0.1; 0.2"]:
        assert typed_list(text, SERVED[code]) == text

