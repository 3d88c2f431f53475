"""What every JSON route shares in /openapi.json: the refusal body and its `responses=` entries, the limits a
parameter or a field states; readiness.

A model of what a route answers is named `<what>Answer` (FormatAnswer, VerdictAnswer, RefusalAnswer), beside the
`<what>Request` bodies routes read; a model of a part of an answer is named for what it holds. So no model's name is
a core's (Encoding, Rounded, Block) or a library's (joserfc's KeySet)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from fastapi import FastAPI
from pydantic import BaseModel, Field, WithJsonSchema


class RefusalAnswer(BaseModel):
    """A refusal (4xx): one sentence a person can act on, as app/web/platform/refusal_handlers.py sends it
    (ERROR_SCHEMA)."""

    detail: str = Field(min_length=1, description="a sentence a person can act on")


def refused(description: str) -> dict[str, Any]:
    """One refusal a route declares in `responses=`: when it happens, and its {"detail": "<sentence>"} body."""
    return {"model": RefusalAnswer, "description": description}


# -- limits stated in /openapi.json, checked by the app ------------------------------------------------------------
# A parameter or a field the app reads and checks itself (a name, a number as typed) keeps its plain type, so that
# what is outside its limits is refused with the app's own sentence ("Unknown rounding 'x'; choose one of: ...")
# and not with pydantic's words; `stated` makes /openapi.json say those limits, taken from the app's own constants.
# A stated schema may allow less than the app reads (one way of writing a value where the app reads several), never
# more: whatever it allows, the app accepts (tests/fuzz/test_schemathesis.py: positive_data_acceptance).


def stated(schema: dict[str, Any]) -> WithJsonSchema:
    """The schema /openapi.json gives this type (in an Annotated), in place of the plain type's; validation is
    unchanged."""
    return WithJsonSchema(schema)


def one_of(ids: Iterable[str]) -> dict[str, Any]:
    """A name the app knows: one of `ids`, in their order."""
    return {"type": "string", "enum": list(ids)}


def whole(lowest: int, highest: int) -> dict[str, Any]:
    """A whole number from `lowest` to `highest`, as the app reads it (in a query string, its decimal digits)."""
    return {"type": "integer", "minimum": lowest, "maximum": highest}


def number(lowest: float, highest: float) -> dict[str, Any]:
    """A number from `lowest` to `highest`."""
    return {"type": "number", "minimum": lowest, "maximum": highest}


def document_stated_numbers(app: FastAPI) -> None:
    """Make /openapi.json give the default of a query parameter stated as a whole number as that number: the route
    keeps the text it reads (devices="1"), which is what pydantic writes as the default."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                for parameter in operation.get("parameters", ()):
                    limits = parameter.get("schema", {})
                    if limits.get("type") == "integer" and isinstance(limits.get("default"), str):
                        limits["default"] = int(limits["default"])
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


UNREADABLE_BODY = refused("A request body that cannot be parsed: not UTF-8 text, or nested too deeply")


class ReadinessAnswer(BaseModel):
    """Whether this instance can serve traffic (GET /readyz)."""

    status: Literal["ready", "unavailable"] = Field(description="ready (200) or unavailable (503)")
    detail: str | None = Field(None, description="when unavailable: why, and what to do; absent when ready")
