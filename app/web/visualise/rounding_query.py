"""The rounding and the overflow policy a request asks for, read and checked once where the request comes in: a
route takes ChosenRounding and ChosenOverflow and gets the core's names, or the request is refused with the core's
sentence ("Unknown rounding 'up'; choose one of: ...") before the route runs."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from app.formats import OVERFLOW_POLICIES, ROUNDINGS, OverflowPolicy, Rounding, overflow_policy, rounding_mode
from app.web.platform.schemas import one_of, stated

ROUNDING_DOC = "nearest_even (default), nearest_away, toward_zero, toward_positive, toward_negative, stochastic"
OVERFLOW_DOC = "format_default (what ml_dtypes does for that format) or saturate"

# /openapi.json lists the names (`stated`); the app checks them itself, so that a refusal is its own sentence
RoundingName = Annotated[str, Query(description=ROUNDING_DOC, min_length=1), stated(one_of(ROUNDINGS))]
OverflowName = Annotated[str, Query(description=OVERFLOW_DOC, min_length=1), stated(one_of(OVERFLOW_POLICIES))]


# async: a check this small is not worth a trip to the thread pool
async def _rounding(rounding: RoundingName = "nearest_even") -> Rounding:
    return rounding_mode(rounding)


async def _overflow(overflow: OverflowName = "format_default") -> OverflowPolicy:
    return overflow_policy(overflow)


ChosenRounding = Annotated[Rounding, Depends(_rounding)]
ChosenOverflow = Annotated[OverflowPolicy, Depends(_overflow)]
