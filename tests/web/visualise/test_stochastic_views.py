"""Stochastic rounding in the visualiser and the API: a page without a seed draws one, shows it and carries it in
every link, and is never cached; the page shows the chance of each neighbour; /api/compare takes `seed` as
/encode does."""

from __future__ import annotations

from fractions import Fraction
from urllib.parse import parse_qs, urlsplit

import pytest

from app.formats import SCALAR_FORMATS
from app.web.visualise.pages import visualise
from tests.helpers.html import HX, Elements
from tests.helpers.shown import Shown

UNSEEDED = "/visualise/float8_e4m3fn?value=0.3&rounding=stochastic"


def seed_of(href: str) -> list[str]:
    return parse_qs(urlsplit(href).query).get("seed", [])


def drawn(client, url: str = UNSEEDED, **kwargs) -> tuple[str, Elements]:
    response = client.get(url, **kwargs)
    assert response.status_code == 200
    page = Elements(response.text)
    return page.having("data-seed-drawn")[0]["data-seed-drawn"], page


def test_a_page_without_a_seed_draws_one_and_every_link_and_the_form_carry_it(client):
    seed, page = drawn(client)
    assert seed.isdigit() and 0 <= int(seed) < 2**63
    assert f"Seed {seed} (drawn;" in page.text_of("data-seed-drawn")
    form_seed = next(attrs for tag, attrs in page.tags if tag == "input" and attrs.get("id") == "seed")
    assert form_seed["value"] == seed
    section = next(i for i, (_, attrs) in enumerate(page.tags) if attrs.get("id") == "visualiser")
    inside = [page.tags[i] for i in page.inside(section)]
    links = [attrs["href"] for tag, attrs in inside if tag == "a" and "data-block-format" not in attrs]
    bit_links = [attrs["href"] for attrs in page.having("data-bit")]
    pills = [attrs["href"] for attrs in page.having("data-format") if "href" in attrs]
    assert len(bit_links) == 8 and len(pills) == len(SCALAR_FORMATS)
    assert len(links) > len(bit_links) + len(pills)  # the neighbours and the custom layout's too
    for href in links:
        assert seed_of(href) == [seed], href
    shared = page.having("data-seed-link")[0]["href"]
    assert parse_qs(urlsplit(shared).query) == {"value": ["0.3"], "rounding": ["stochastic"], "seed": [seed]}


def test_the_seeded_link_restores_the_same_view(client):
    seed, page = drawn(client)
    again = Elements(client.get(page.having("data-seed-link")[0]["href"]).text)
    assert again.text_of("data-stored") == page.text_of("data-stored")
    assert not again.having("data-seed-drawn")  # the seed is now the link's, not drawn


def test_each_visit_draws_afresh_and_nothing_caches_or_tags_the_page(client):
    cache = visualise.cache  # type: ignore[attr-defined]
    size = len(cache)
    seeds = set()
    for _ in range(5):
        response = client.get(UNSEEDED)
        assert response.headers["cache-control"] == "no-store"
        assert "etag" not in response.headers
        seeds.add(Elements(response.text).having("data-seed-drawn")[0]["data-seed-drawn"])
    assert len(seeds) == 5  # 2^63 seeds: five draws that repeat one would be a broken draw
    assert len(cache) == size
    assert not any(UNSEEDED.split("?")[1] in key for key in cache)  # the key holds the query as asked


def test_a_refusal_with_a_drawn_seed_is_not_cached_either(client):
    cache = visualise.cache  # type: ignore[attr-defined]
    size = len(cache)
    response = client.get("/visualise/float16?value=zebra&rounding=stochastic")
    assert response.status_code == 422 and response.headers["cache-control"] == "no-store"
    assert len(cache) == size


def test_htmx_gets_the_seeded_address_for_its_history(client):
    response = client.get(UNSEEDED, headers=HX)
    seed = Elements(response.text).having("data-seed-drawn")[0]["data-seed-drawn"]
    assert seed_of(response.headers["hx-push-url"]) == [seed]
    assert response.headers["cache-control"] == "no-store"


def test_a_seeded_page_is_cached_and_has_no_drawn_seed(client):
    url = UNSEEDED + "&seed=42"
    first = client.get(url)
    assert "no-store" not in first.headers.get("cache-control", "") and "etag" in first.headers
    assert client.get(url).content == first.content
    assert not Elements(first.text).having("data-seed-drawn")


def test_other_roundings_draw_no_seed(client):
    page = Shown(client.get("/visualise/float8_e4m3fn?value=0.3").text)
    assert not page.having("data-seed-drawn") and not page.having("data-stochastic")


@pytest.mark.parametrize(("url", "p_up", "up", "p_down", "down"), [
    # E4M3 holds 9/32 and 5/16 around 0.3, which lies 3/5 of the way up
    (UNSEEDED + "&seed=1", "0.6", "0.3125", "0.4", "0.28125"),
    # FP16: 1 + 1/3 of its step 2^-10 above 1: the chance 1/3 has no short decimal
    ("/visualise/float16?value=3073/3072&rounding=stochastic&seed=1", "1/3", "1.0009765625", "2/3", "1"),
])
def test_the_page_shows_the_chance_of_each_neighbour(client, url, p_up, up, p_down, down):
    page = Elements(client.get(url).text)
    assert (page.text_of("data-p-up"), page.text_of("data-odds-up")) == (p_up, up)
    assert (page.text_of("data-p-down"), page.text_of("data-odds-down")) == (p_down, down)
    assert Fraction(p_up) + Fraction(p_down) == 1
    went = page.text_of("data-odds-went")
    assert page.text_of("data-stored") == (up if went == "up" else down)


def test_a_certain_result_says_there_is_nothing_to_draw(client):
    page = Shown(client.get("/visualise/float8_e4m3fn?value=0.5&rounding=stochastic&seed=3").text)
    assert "nothing to choose" in page.text_of("data-odds") and not page.having("data-p-up")


# -- /api/compare ---------------------------------------------------------------------------------


def test_compare_takes_a_seed_as_encode_does(client):
    params = {"value": "1/3", "rounding": "stochastic"}
    outcomes = set()
    for seed in map(str, range(12)):
        results = client.get("/api/compare", params=params | {"seed": seed}).json()["results"]
        for result in results[::4]:  # a few formats each time keeps the test fast; all of them over the seeds
            alone = client.get(f"/api/formats/{result['format']}/encode", params=params | {"seed": seed}).json()
            assert alone == result, (seed, result["format"])
        outcomes.add(next(r["value"] for r in results if r["format"] == "float8_e4m3fn"))
    assert outcomes == {"0.3125", "0.34375"}  # the seed decides, and both neighbours of 1/3 come up


def test_compare_with_the_same_seed_repeats_itself(client):
    params = {"value": "0.1", "rounding": "stochastic", "seed": "2024"}
    assert client.get("/api/compare", params=params).json() == client.get("/api/compare", params=params).json()


@pytest.mark.parametrize("seed", ["-1", "1.5", "abc", str(2**63)])
def test_compare_refuses_a_bad_seed_with_a_sentence(client, seed):
    response = client.get("/api/compare", params={"value": "1", "rounding": "stochastic", "seed": seed})
    assert response.status_code == 422 and "seed must be a whole number" in response.json()["detail"]


def test_openapi_describes_the_seed_of_compare(client):
    parameters = client.get("/openapi.json").json()["paths"]["/api/compare"]["get"]["parameters"]
    seed = next(p for p in parameters if p["name"] == "seed")
    assert seed["in"] == "query" and not seed.get("required", False)
    assert "stochastic" in seed["description"] and "encode" in seed["description"]
