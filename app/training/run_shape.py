"""What every run reports besides its steps, in one leaf module that the runner, which makes the reports, and
the budget, which counts their cost before a run starts, both read."""

HISTOGRAM_SNAPSHOTS = 20  # gradient-exponent histograms per run, the last step's included
GRID_POINTS = 24  # per side of the decision grid whose predictions a run reports at its end
