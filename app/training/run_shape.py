"""What every run reports besides its steps, in one leaf module that the runner, which makes the reports, and
the budget, which counts their cost before a run starts, both read."""

HISTOGRAM_SNAPSHOTS = 20  # gradient-exponent histograms and decision grids per run at most, the last step's included
GRID_POINTS = 24  # per side of the decision grid whose predictions a run reports at each snapshot and its end


def is_snapshot(step: int, steps: int) -> bool:
    """Whether a run of `steps` steps reports a histogram and a decision grid at `step` (from 1).

    min(steps, HISTOGRAM_SNAPSHOTS) steps, spread evenly and the last one included: the step at which
    step * HISTOGRAM_SNAPSHOTS / steps passes a whole number. A run whose steps are a multiple of
    HISTOGRAM_SNAPSHOTS reports every steps / HISTOGRAM_SNAPSHOTS steps.
    """
    return step * HISTOGRAM_SNAPSHOTS // steps > (step - 1) * HISTOGRAM_SNAPSHOTS // steps


def snapshot_count(steps: int) -> int:
    """How many steps of a run of `steps` steps `is_snapshot`: never fewer for a longer run."""
    return min(steps, HISTOGRAM_SNAPSHOTS)
