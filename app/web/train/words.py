"""The sentences the /train page's scripts write into it (static/js/train*.js), in the page's language.

The page carries them as JSON (`data-train-words`, templates/train.html): each English sentence, with its {name}
slots, to its translation, and each recipe's name by id (the run's events name them in English, as the API does).
static/js/train_words.js reads them; a sentence the page does not carry stays English.
"""

from __future__ import annotations

from typing import Any

from app.training import RECIPES
from app.web.platform.translations import N_, gettext

SENTENCES = (
    # the status beside Start, the progress, the step shown
    N_("Starting…"), N_("Training…"), N_("Stopped at step {step} of {steps}."), N_("Done: {steps} steps."),
    N_("The run did not finish."), N_("{done} of {steps} steps"), N_("Step {step} of {steps}"),
    N_("The server answered {status}."), N_("The connection closed before the run finished."),
    N_("These settings were trained already: their run is shown, at step {step}."),
    N_("The chart library did not load."),
    # the player
    N_("Play"), N_("Pause"), N_("Speed: {speed} steps a second."), N_("Playing at {speed} steps a second."),
    N_("Paused. {where}"), N_("Played to the end. {where}"), N_("Step {step} of {steps}."),
    # stale charts
    N_("Recipes in the charts"), N_("Recipes in the charts, for the previous settings (stale)"),
    N_("Stale: previous settings"),
    N_("The charts are stale: they are for the previous settings. Press Start to train with these."),
    # the histograms and decision boundaries
    N_("Drawn at the first snapshot, after a few steps."),
    N_("{share}% below min subnormal, {zeros} zero, {nonfinite} inf or NaN"),
    N_("{name}: gradient exponents in {format}; {summary}"), N_("At step {step}: {summary}"),
    N_("{format}: subnormals from {subnormal}, normals from {normal}, max ≈ {max}"),
    N_("{format}: subnormals from {subnormal}, max ≈ {max}"), N_("{format}: normals from {normal}, max ≈ {max}"),
    N_("test accuracy ≈{value}%"), N_("test loss ≈{value}"), N_("test loss not finite"),
    N_("{name}: predicted class over the input plane at step {step}"),
    N_("{name}: predicted value over the input plane at step {step}"), N_("At step {step}"),
    # Take it home
    N_("Choose a recipe above to get its script."),
    N_("The script could not be fetched just now; its links still work."),
)


def page_words() -> dict[str, Any]:
    """What `data-train-words` holds: {"sentences": {English: translation}, "recipes": {id: name}}."""
    return {"sentences": {s: gettext(s) for s in SENTENCES},
            "recipes": {r.id: gettext(r.name) for r in RECIPES.values()}}
