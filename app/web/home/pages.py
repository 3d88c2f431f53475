"""The home page: what the lab is, and links to everything."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.formats import encode, get_format, parse_number
from app.web.platform.rendering import link_prefix, render
from app.web.visualise.present import bit_groups, layout_roles, visualise_url

router = APIRouter()

FEATURED = ("float32", "bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int8", "nf4")
EXAMPLE_FORMAT, EXAMPLE_VALUE = "float16", "0.1"


@router.get("/", include_in_schema=False)
def home(request: Request) -> HTMLResponse:
    spec = get_format(EXAMPLE_FORMAT)
    example = encode(spec, parse_number(EXAMPLE_VALUE)).encoding
    prefix = link_prefix(request.url.path)  # the language's: /tr on the Turkish home page
    context = {
        "featured": [(get_format(f), visualise_url(f, value=EXAMPLE_VALUE, prefix=prefix)) for f in FEATURED],
        "example": example,
        "example_groups": bit_groups(example),
        "example_fields": layout_roles(spec),
        "example_href": visualise_url(EXAMPLE_FORMAT, value=EXAMPLE_VALUE, prefix=prefix),
    }
    return render(request, "home.html", context, fragment="content")
