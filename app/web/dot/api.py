"""POST /api/dot: a dot product of two stored vectors accumulated several ways, against its exact value."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.deps import rate_limited
from app.formats import ReadVector, read_items
from app.web.dot.figure import answer, compute
from app.web.dot.schemas import DotAnswer, DotRequest
from app.web.platform.schemas import UNREADABLE_BODY, refused

router = APIRouter(prefix="/api", tags=["dot product"])


def _read(values: list[float | str] | None, name: str) -> ReadVector | None:
    """A vector as typed: a JSON number is read as the decimal it is written as (repr gives it back)."""
    return None if values is None else read_items(values, name)


@router.post(
    "/dot",
    summary="Accumulate a dot product several ways, tensor-core models included",
    description="The vectors are stored in the input format; each method's result is compared with the exact dot "
                "product of the stored vectors. The tensor-core models (v100, a100, h100, b200) take their parameters "
                "from MMA-Sim (Microsoft, arXiv:2511.10909) and reproduce the V100 and A100 results of Fasi, Higham, "
                "Mikaitis and Pranesh's test suite (PeerJ Computer Science, 2021); promoted follows the DeepSeek-V3 "
                "technical report, section 3.3.2. /dot says where each parameter comes from.",
    response_model=DotAnswer,
    responses={400: UNREADABLE_BODY,
               422: refused("A format, method or distribution that is not offered, a method that does not take the "
                            "format, vectors of different lengths or longer than 4096, a value that cannot be read, "
                            "or promote_every, n, seed or step out of range; the detail says which"),
               429: refused("Too many sums asked for from this address; retry after the Retry-After seconds")},
    dependencies=[rate_limited("sums")],
)
def dot_api(body: DotRequest) -> JSONResponse:
    figure = compute(body.format, _read(body.a, "a"), _read(body.b, "b"), body.distribution, body.n, body.seed,
                     body.methods, body.promote_every, body.step, body.step_method)
    content: dict[str, Any] = answer(figure)
    # DotAnswer documents this body; it is built from the core's exact values and not validated again
    return JSONResponse(content)
