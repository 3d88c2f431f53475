"""The block visualiser's list on a page in a decimal-comma language: `;` or new lines separate the values there,
each may have a decimal comma (app/web/platform/decimal_comma.py typed_list); the page says so."""

from __future__ import annotations

import pytest

from tests.helpers.html import Elements

RULE = {"tr": "değerlerin arasına “;” ya da yeni satır koyun", "el": "χωρίστε τις τιμές με «;» ή με νέα γραμμή"}


@pytest.mark.parametrize("code", ["tr", "el"])
def test_a_list_of_decimal_comma_values_is_read_on_a_comma_page(client, code):
    response = client.get(f"/{code}/visualise/mxfp8_e4m3", params={"values": "0,5; -1,25\n3"})
    assert response.status_code == 200
    page = Elements(response.text)
    assert page.texts_of("data-input")[:3] == ["0.5", "-1.25", "3"]  # canonical notation, as the core read them
    assert RULE[code] in response.text


def test_commas_separate_values_on_an_english_page(client):
    response = client.get("/visualise/mxfp8_e4m3", params={"values": "0,5"})
    assert response.status_code == 200
    assert Elements(response.text).texts_of("data-input")[:2] == ["0", "5"]  # two values
    assert "“;”" not in response.text
