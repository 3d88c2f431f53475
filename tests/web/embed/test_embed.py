"""Embedding: the /embed/ pages (page and fragment, no chrome, links kept in the frame, the way out), the Embed
snippet (with the host's half of the height protocol) and oEmbed link of every embeddable page, the hide flags
(vocabulary, hooks, refusals, the dialog's choices), /oembed's answers and refusals, and which pages may be framed."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, parse_qsl, quote, urlencode, urlsplit

import pytest

from app.web.embed.hide import VOCABULARY
from app.web.embed.pages import HEIGHT_MESSAGE, embeddable, host_script
from app.web.platform.languages import unprefixed
from app.web.platform.rendering import STATIC_DIR, static
from tests.helpers.html import HX, Elements

ORIGIN = "http://127.0.0.1:8000"  # Settings.public_base_url in the tests
# the full pages, in some state; the framed page of each is at /embed + its address
FULL = [
    "/visualise/bfloat16?value=0.1",
    "/visualise/float16?bits=0x3c00&rounding=toward_zero",
    "/visualise/nf4?value=0.5",
    "/visualise/mxfp4?preset=outlier",
    "/visualise/nf4?preset=nan",
    "/compare?value=0.3952&overflow=saturate",
    "/train?scenario=tiny_gradients&steps=40&width=8",
]
FRAMED = ["/embed" + full for full in FULL]
EMBEDS = list(zip(FRAMED, FULL, strict=True))


def iframe(snippet: str) -> dict[str, str]:
    """The snippet's iframe; the snippet is that iframe and the host's script (`host_script_of`), nothing else."""
    tags = Elements(snippet).tags
    assert [tag for tag, _ in tags] == ["iframe", "script"]
    return tags[0][1]


def host_script_of(snippet: str) -> str:
    page = Elements(snippet)
    (script,) = [i for i, (tag, _) in enumerate(page.tags) if tag == "script"]
    assert page.tags[script][1] == {}  # inline, for the course page: no src on this site
    return page.texts[script]


def snippet_of(page: Elements) -> dict[str, str]:
    return iframe(page.text_of("data-embed-snippet"))


def local_links(page: Elements) -> list[str]:
    """Every address the page navigates or swaps to on this site, the way out of the frame left aside."""
    links = [attrs.get("href") for tag, attrs in page.tags if tag == "a" and "data-open-full" not in attrs]
    links += [attrs.get("data-hx-get") for _, attrs in page.tags] + [attrs.get("action") for _, attrs in page.tags]
    return [link for link in links if link and link.startswith("/")]


# -- the framed pages ------------------------------------------------------------------------------


@pytest.mark.parametrize("url", FRAMED)
def test_a_framed_page_has_no_site_chrome_and_sets_no_cookie(client, url):
    response = client.get(url)
    assert response.status_code == 200
    assert "<html" in response.text and static("css/site.css") in response.text
    assert "site-header" not in response.text and "site-footer" not in response.text
    assert 'aria-label="Site"' not in response.text
    assert "set-cookie" not in response.headers


@pytest.mark.parametrize("url", FRAMED)
def test_htmx_gets_only_the_fragment_of_a_framed_page(client, url):
    response = client.get(url, headers=HX)
    assert response.status_code == 200
    assert "<html" not in response.text and "data-embed" not in response.text
    assert response.text.strip()


@pytest.mark.parametrize(("framed", "full"), EMBEDS)
def test_open_in_precision_lab_links_the_full_page_in_the_same_state(client, framed, full):
    page = Elements(client.get(framed).text)
    (way_out,) = page.having("data-open-full")
    assert way_out["href"] == full
    assert way_out["target"] == "_blank" and "noopener" in way_out["rel"]
    assert page.text_of("data-open-full").startswith("Open in Precision Lab")


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
@pytest.mark.parametrize("url", FRAMED)
def test_links_and_swaps_of_a_framed_page_stay_under_embed(client, url, headers):
    links = local_links(Elements(client.get(url, headers=headers).text))
    assert links or headers == HX  # the demo's fragment (its results) has no links
    # the language switcher's links stay in the frame too, in another language (/tr/embed/...)
    assert all(unprefixed(link).startswith(("/embed/", "/static/")) or link == "#main" for link in links), links


def test_bit_flips_in_the_framed_visualiser_go_to_the_framed_visualiser(client):
    page = Elements(client.get("/embed/visualise/float16?bits=0x3c00&overflow=saturate").text)
    cells = page.having("data-bit")
    assert len(cells) == 16
    for cell in cells:
        parts = urlsplit(cell["href"])
        assert parts.path == "/embed/visualise/float16" and cell["data-hx-get"] == cell["href"]
        assert parse_qs(parts.query)["overflow"] == ["saturate"]
    flipped = client.get(next(c["href"] for c in cells if c["data-bit"] == "15"))
    assert Elements(flipped.text).text_of("data-stored") == "-1"


def test_the_framed_comparison_links_the_framed_visualiser(client):
    page = Elements(client.get("/embed/compare?value=0.5").text)
    rows = [a["href"] for tag, a in page.tags if tag == "a" and "/visualise/" in a.get("href", "")]
    assert rows and all(href.startswith("/embed/visualise/") for href in rows)


def test_a_block_in_a_frame_links_its_elements_visualiser_in_the_frame(client):
    response = client.get("/embed/visualise/mxfp4")
    assert response.status_code == 200
    links = [a["href"] for a in Elements(response.text).having("data-element-link")]
    assert len(links) == 32 and all(href.startswith("/embed/visualise/float4_e2m1fn?bits=0x") for href in links)


def test_the_framed_demo_trains_without_javascript(client):
    response = client.get("/embed/train?steps=30&width=8&recipe=fp32&recipe=bf16&run=1")
    assert response.status_code == 200
    assert Elements(response.text).having("data-finished")


# -- the Embed button and the oEmbed link ----------------------------------------------------------


@pytest.mark.parametrize(("framed", "full"), EMBEDS)
@pytest.mark.parametrize("at", ["full", "framed"])
def test_every_embeddable_page_offers_the_snippet_of_its_state(client, framed, full, at):
    page = Elements(client.get(full if at == "full" else framed).text)
    frame = snippet_of(page)
    assert frame["src"] == ORIGIN + framed
    assert frame["width"] == "100%" and int(frame["height"]) > 0
    assert frame["title"].startswith("Precision Lab") and frame["loading"] == "lazy"
    (details,) = page.having("data-embed")
    assert "open" not in details  # closed until asked for; with JavaScript off the summary opens it
    (copy,) = page.having("data-embed-copy")
    assert "hidden" in copy  # embed.js shows it
    assert bool(page.having("data-open-full")) == (at == "framed")


@pytest.mark.parametrize("url", FRAMED + FULL)
def test_every_embeddable_page_links_its_oembed_answer(client, url):
    links = [a for tag, a in Elements(client.get(url).text).tags
             if tag == "link" and a.get("rel") == "alternate" and "hreflang" not in a]  # not the languages'
    (link,) = links
    assert link["type"] == "application/json+oembed" and link["title"]
    parts = urlsplit(link["href"])
    assert f"{parts.scheme}://{parts.netloc}" == ORIGIN and parts.path == "/oembed"
    full = url.removeprefix("/embed")
    assert parse_qs(parts.query) == {"url": [ORIGIN + full], "format": ["json"]}
    answer = client.get(f"{parts.path}?{parts.query}")
    assert answer.status_code == 200 and iframe(answer.json()["html"])["src"] == ORIGIN + "/embed" + full


def test_a_page_that_is_not_embeddable_has_neither(client):
    for url in ("/", "/formats", "/docs"):
        text = client.get(url).text
        assert "data-embed" not in text and "json+oembed" not in text


# -- the height protocol: the host's script in every snippet, the framed page's half ---------------


@pytest.mark.parametrize("url", FRAMED + FULL)
def test_every_snippet_carries_the_host_script_for_this_origin(client, url):
    page = Elements(client.get(url).text)
    snippet = page.text_of("data-embed-snippet")
    assert "data-precision-lab" in iframe(snippet)  # the mark the script looks for, so no other frame is touched
    script = host_script_of(snippet)
    assert f'("{ORIGIN}")' in script and "e.origin!==o" in script and "contentWindow===e.source" in script
    oembed_html = client.get("/oembed", params={"url": ORIGIN + url.removeprefix("/embed")}).json()["html"]
    assert host_script_of(oembed_html) == script


def test_the_host_listens_for_the_message_the_framed_page_posts():
    """Both halves name the same message type: the framed page's script and the host's."""
    posted = re.search(r'const TYPE = "([^"]+)";', (STATIC_DIR / "js" / "embed_size.js").read_text())
    assert posted and posted[1] == HEIGHT_MESSAGE and f"'{HEIGHT_MESSAGE}'" in host_script(ORIGIN)


def test_the_host_script_cannot_be_closed_by_the_origin_it_names():
    script = host_script("http://example.org/</script><script>alert(1)//")
    assert "</script" not in script.lower()


@pytest.mark.parametrize(("framed", "full"), EMBEDS)
def test_only_a_framed_page_tells_its_height(client, framed, full):
    """The framed page loads the Embed script, which brings the height protocol with it (no request of its own);
    that acts only in a frame, and the full page refuses to be framed at all."""
    assert "embed.js" in client.get(framed).text
    assert 'import "./embed_size.js";' in (STATIC_DIR / "js" / "embed.js").read_text()
    assert "if (window.parent !== window) {" in (STATIC_DIR / "js" / "embed_size.js").read_text()
    assert "frame-ancestors 'none'" in client.get(full).headers["content-security-policy"]


# -- hide flags ------------------------------------------------------------------------------------

# a page of each kind, framed, with the hide flags it has
KINDS = {
    "train": "/embed/train?scenario=tiny_gradients&recipe=fp32&recipe=fp16_no_scaling",
    "visualise": "/embed/visualise/float16?value=0.1",
    "block": "/embed/visualise/mxfp4?preset=outlier",
    "compare": "/embed/compare?value=0.3952",
    "accumulation": "/embed/learn/accumulation?n=1000",
    "arithmetic": "/embed/arithmetic?format=float16&op=add&a=1&b=2",
    "dot": "/embed/dot?n=64",
}
HIDEABLE = [(kind, part.name) for kind in KINDS for part in VOCABULARY[kind]]


def marked(page: Elements) -> list[str]:
    """The hide flags the framed page marks for its stylesheet."""
    (marker,) = page.having("data-hide")
    return marker["data-hide"].split()


def groups(page: Elements, name: str) -> list[int]:
    return [i for i, (_, attrs) in enumerate(page.tags) if name in attrs.get("data-hide-group", "").split()]


def test_every_kind_of_embeddable_page_has_a_vocabulary(client):
    assert {embeddable(url.removeprefix("/embed").split("?")[0], url.partition("?")[2]).kind  # type: ignore[union-attr]
            for url in KINDS.values()} == set(KINDS) == set(VOCABULARY)


@pytest.mark.parametrize(("kind", "name"), HIDEABLE)
def test_each_hide_flag_marks_the_page_and_the_page_has_its_part(client, kind, name):
    page = Elements(client.get(f"{KINDS[kind]}&hide={name}").text)
    assert marked(page) == [name]
    assert groups(page, name), f"nothing in the {kind} page is marked data-hide-group={name}"
    # the same page without the flag still has the part, only unmarked for the stylesheet
    plain = Elements(client.get(KINDS[kind]).text)
    assert marked(plain) == [] and len(groups(plain, name)) == len(groups(page, name))


def test_every_hide_flag_has_its_rule_in_the_stylesheet():
    css = (STATIC_DIR / "css" / "embed.css").read_text()
    for name in {part.name for parts in VOCABULARY.values() for part in parts}:
        assert f'[data-hide~="{name}"] ~ main [data-hide-group~="{name}"]' in css, name


@pytest.mark.parametrize("query", ["hide=intro&hide=controls", "hide=intro,controls", "hide=intro, controls,,",
                                   "hide=controls&hide=intro,controls"])
def test_hide_flags_may_be_repeated_or_separated_by_commas(client, query):
    page = Elements(client.get(f"/embed/visualise/float16?value=0.1&{query}").text)
    assert sorted(marked(page)) == ["controls", "intro"]


@pytest.mark.parametrize(("kind", "bad"), [("visualise", "settings"), ("train", "controls"), ("compare", "formats"),
                                           ("block", "numberline"), ("train", "Settings"), ("compare", "<b>x</b>"),
                                           ("visualise", "x" * 300)])
@pytest.mark.parametrize("at", ["framed", "full"])
def test_a_hide_flag_the_page_does_not_have_is_refused_with_the_allowed_ones(client, kind, bad, at):
    url = f"{KINDS[kind]}&hide=intro,{quote(bad)}"
    response = client.get(url if at == "framed" else url.removeprefix("/embed"))
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("text/html")
    sentence = Elements(response.text).text_of("data-error")
    assert sentence.endswith(".") and "<b>" not in response.text and len(sentence) < 300
    assert all(part.name in sentence for part in VOCABULARY[kind])


def test_oembed_refuses_a_hide_flag_the_page_does_not_have(client):
    response = oembed(client, ORIGIN + "/visualise/float16?hide=settings")
    assert response.status_code == 400
    assert "controls" in response.json()["detail"]


def test_a_refused_hide_flag_is_still_framed_as_an_embed_page(client):
    headers = client.get("/embed/compare?hide=nosuch").headers
    assert "frame-ancestors *" in headers["content-security-policy"] and "x-frame-options" not in headers


def test_the_snippet_keeps_the_hide_flags_of_the_url(client):
    page = Elements(client.get("/compare?value=0.5&hide=controls&hide=blocks").text)
    assert snippet_of(page)["src"] == ORIGIN + "/embed/compare?value=0.5&hide=controls&hide=blocks"


@pytest.mark.parametrize(("kind", "at"), [(kind, at) for kind in KINDS for at in ("framed", "full")])
def test_the_embed_dialog_offers_every_hide_flag_and_reloads_with_them_without_javascript(client, kind, at):
    url = f"{KINDS[kind]}&hide=intro"
    url = url if at == "framed" else url.removeprefix("/embed")
    page = Elements(client.get(url).text)
    boxes = page.having("data-embed-hide-part")
    assert [box["value"] for box in boxes] == [part.name for part in VOCABULARY[kind]]
    assert all(box["type"] == "checkbox" and box["name"] == "hide" for box in boxes)
    assert [box["value"] for box in boxes if "checked" in box] == ["intro"]
    path, query = urlsplit(url).path, urlsplit(url).query
    (form,) = [i for i, (_, attrs) in enumerate(page.tags) if "data-embed-hide" in attrs]
    assert page.tags[form][1]["method"] == "get" and page.tags[form][1]["action"] == path
    # its hidden fields are the page's state without its flags, so that sending it changes the flags alone
    state = [(attrs["name"], attrs["value"]) for tag, attrs in (page.tags[i] for i in page.inside(form))
             if tag == "input" and attrs["type"] == "hidden"]
    assert state == [(key, value) for key, value in parse_qsl(query) if key != "hide"]
    ticked = [*state, ("hide", "intro"), ("hide", VOCABULARY[kind][-1].name)]
    sent = client.get(f"{path}?{urlencode(ticked)}")
    assert sent.status_code == 200
    assert snippet_of(Elements(sent.text))["src"] == f"{ORIGIN}/embed{path.removeprefix('/embed')}?{urlencode(ticked)}"


# -- /oembed ---------------------------------------------------------------------------------------


def oembed(client, url: str, **params: object):
    return client.get("/oembed", params={"url": url, **params})


@pytest.mark.parametrize("limits", [{}, {"maxwidth": 400}, {"maxheight": 300}, {"maxwidth": 1, "maxheight": 1},
                                    {"maxwidth": 10**30, "maxheight": 10**30}], ids=str)
@pytest.mark.parametrize("url", FRAMED + FULL)
def test_oembed_answers_a_rich_response_within_the_limits(client, url, limits):
    response = oembed(client, ORIGIN + url, format="json", **limits)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    answer = response.json()
    assert answer.keys() >= {"version", "type", "provider_name", "provider_url", "title", "html", "width", "height"}
    assert (answer["version"], answer["type"]) == ("1.0", "rich")
    assert answer["provider_name"] == "Precision Lab" and answer["provider_url"] == ORIGIN + "/"
    width, height = answer["width"], answer["height"]
    assert isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0
    assert width <= limits.get("maxwidth", width) and height <= limits.get("maxheight", height)
    frame = iframe(answer["html"])
    assert frame["src"] == ORIGIN + "/embed" + url.removeprefix("/embed")
    assert (frame["width"], frame["height"]) == (str(width), str(height))
    assert frame["title"] == answer["title"]


def test_oembed_escapes_the_state_it_puts_in_the_snippet(client):
    hostile = '0.1"><script>alert(1)</script>'
    answer = oembed(client, f"{ORIGIN}/compare?value={quote(hostile)}&x=\"'<>").json()
    assert answer["html"].count("<script") == 1 and answer["html"].count("<iframe") == 1  # the host's script only
    assert "alert" not in host_script_of(answer["html"])
    assert iframe(answer["html"])["src"].startswith(ORIGIN + "/embed/compare?value=")


NOT_OURS = [
    "http://example.org/visualise/bfloat16",
    "http://127.0.0.1:9999/visualise/bfloat16",
    "https://127.0.0.1:8000/visualise/bfloat16",
    "http://127.0.0.1.example.org:8000/compare",
    "//127.0.0.1:8000/compare",
    "/compare",
    f"{ORIGIN}/",
    f"{ORIGIN}/formats",
    f"{ORIGIN}/api/formats",
    f"{ORIGIN}/train/stream",
    f"{ORIGIN}/quiz",
    f"{ORIGIN}/oembed",
    f"{ORIGIN}/visualise/nosuch",
    f"{ORIGIN}/visualise/float16/extra",
    f"{ORIGIN}/embed/",
    f"{ORIGIN}/embedcompare",
    f"{ORIGIN}/embed/embed/compare",
    "javascript:alert(1)",
    "http://[",
    "http://127.0.0.1:99999/compare",
    "not a url at all",
]


@pytest.mark.parametrize("url", NOT_OURS)
def test_oembed_refuses_urls_that_are_not_our_embeddable_pages(client, url):
    response = oembed(client, url)
    assert response.status_code == 404
    assert response.json()["detail"].endswith(".")


@pytest.mark.parametrize("response_format", ["xml", "yaml", ""])
def test_oembed_answers_json_only(client, response_format):
    response = oembed(client, f"{ORIGIN}/compare", format=response_format)
    assert response.status_code == 501
    assert "format=json" in response.json()["detail"]


@pytest.mark.parametrize("params", [
    {},
    {"url": ""},
    {"url": ORIGIN + "/compare?value=" + "9" * 3000},
    {"url": ORIGIN + "/compare", "maxwidth": "-1"},
    {"url": ORIGIN + "/compare", "maxwidth": "0"},
    {"url": ORIGIN + "/compare", "maxwidth": "wide"},
    {"url": ORIGIN + "/compare", "maxwidth": "1.5"},
    {"url": ORIGIN + "/compare", "maxheight": "-300"},
    {"url": ORIGIN + "/compare", "maxheight": "<script>"},
], ids=str)
def test_oembed_refuses_missing_or_garbage_input_with_a_sentence(client, params):
    response = client.get("/oembed", params=params)
    assert 400 <= response.status_code < 500
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail.endswith(".") and "<" not in detail


# -- framing ---------------------------------------------------------------------------------------

NEVER_FRAMED = ["/", "/visualise/float16", "/compare", "/train", "/formats", "/api/formats", "/oembed?url=x"]
FRAMEABLE = ["/embed/visualise/float16", "/embed/compare", "/embed/train", "/embed/visualise/nosuch"]


@pytest.mark.parametrize("url", NEVER_FRAMED)
def test_pages_outside_embed_refuse_every_frame(client, url):
    headers = client.get(url).headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("url", FRAMEABLE)
def test_embed_pages_may_be_framed_anywhere(client, url):
    headers = client.get(url).headers
    assert "frame-ancestors *" in headers["content-security-policy"]
    assert "x-frame-options" not in headers
