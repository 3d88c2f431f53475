"""The JSON of GET /api/accumulation, field by field, for /openapi.json. Exact values travel as strings."""

from __future__ import annotations

from pydantic import BaseModel, Field


class MethodSum(BaseModel):
    """One summation method's result and its error against the exact sum."""

    method: str = Field(description="naive, fp32, pairwise or kahan")
    name: str = Field(description="the method in words")
    result: str = Field(description="the sum in the format (exact string; inf, -inf or nan when it overflowed)")
    error: str = Field(description="result − exact sum (exact string; inf or nan when the result is not finite)")
    rel_error: float | None = Field(description="|error| / |exact sum|; null when the exact sum is 0 or the result "
                                                "not finite")
    stall_step: int | None = Field(description="the step after which the running sum no longer changes; null when "
                                               "it still changes at the end, or for pairwise and Kahan")
    overflow_step: int | None = Field(description="the first step whose running sum is inf or NaN (for pairwise "
                                                  "and Kahan, the first charted step); null when none is")
    running: list[float | None] = Field(description="the running sum at each of `steps` (≈, float64; null where "
                                                    "inf or NaN)")


class AccumulationAnswer(BaseModel):
    """N seeded values stored in a format, summed four ways, against their exact sum."""

    format: str = Field(description="the format the values are stored and summed in")
    distribution: str = Field(description="ones, uniform, normal or lognormal")
    n: int = Field(description="how many values are summed")
    seed: int = Field(description="the seed of numpy's default generator that drew them")
    clamped: int = Field(description="drawn values beyond the format's largest, stored as ± its largest")
    zeroed: int = Field(description="drawn values that were not zero and were stored as zero")
    exact_sum: str = Field(description="the exact sum of the stored values (exact string)")
    steps: list[int] = Field(description="the steps the running sums are given at: log-spaced from 1 to n")
    exact_running: list[float] = Field(description="the exact running sum at each of `steps` (≈, float64)")
    methods: list[MethodSum] = Field(description="one entry per method asked for")
