"""The oEmbed answer of GET /oembed (https://oembed.com, version 1.0, type rich), field by field."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class OEmbedAnswer(BaseModel):
    """A `rich` oEmbed response: the iframe of one embeddable page of this site."""

    version: Literal["1.0"] = Field(description="the oEmbed version")
    type: Literal["rich"] = Field(description="rich: the html is an iframe to paste into a page")
    provider_name: str = Field(description="the site's name")
    provider_url: str = Field(description="the site's home page")
    title: str = Field(description="what the embedded page shows")
    html: str = Field(description="the iframe of the page's /embed/ version, in the state the url gave")
    width: int = Field(description="the iframe's width in px, at most maxwidth")
    height: int = Field(description="the iframe's height in px, at most maxheight")
