"""The training core's registries: recipes, scenarios, datasets, optimizers and activations.

Each registry's keys are a Literal type of the core's signatures, each entry has the name pages show, and any
other id is refused by the core with a ConfigError naming the ids there are. A new entry is tested here with no
new test code.
"""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest

from app.training import (
    ACTIVATIONS,
    DATASETS,
    OPTIMIZERS,
    RECIPES,
    SCENARIOS,
    ActivationId,
    ConfigError,
    DatasetId,
    OptimizerId,
    RecipeId,
    ScenarioId,
    TrainConfig,
    as_activation_id,
    as_dataset_id,
    as_optimizer_id,
    as_recipe_id,
    as_scenario_id,
)

# (what, Literal type, registry, parser, display name of an entry)
REGISTRIES: list[tuple[str, Any, dict[str, Any], Any, Any]] = [
    ("recipe", RecipeId, RECIPES, as_recipe_id, lambda r: r.name),
    ("scenario", ScenarioId, SCENARIOS, as_scenario_id, lambda s: s.title),
    ("dataset", DatasetId, DATASETS, as_dataset_id, lambda d: d.name),
    ("optimizer", OptimizerId, OPTIMIZERS, as_optimizer_id, lambda o: o.name),
    ("activation", ActivationId, ACTIVATIONS, as_activation_id, lambda a: a.name),
]
BY_WHAT = {what: (ids, registry, parse, name) for what, ids, registry, parse, name in REGISTRIES}
ENTRIES = [(what, key) for what, _, registry, _, _ in REGISTRIES for key in registry]
HEX_COLOUR = re.compile(r"#[0-9a-f]{6}")


@pytest.mark.parametrize("what", BY_WHAT)
def test_the_literal_type_of_the_ids_is_the_registry(what):
    ids, registry, _, _ = BY_WHAT[what]
    assert sorted(get_args(ids)) == sorted(registry)


@pytest.mark.parametrize(("what", "key"), ENTRIES)
def test_every_entry_has_a_name_to_show_and_its_own_id(what, key):
    _, registry, parse, name = BY_WHAT[what]
    entry = registry[key]
    assert getattr(entry, "id", key) == key
    assert isinstance(name(entry), str) and name(entry).strip()
    assert parse(key) == key


@pytest.mark.parametrize("what", BY_WHAT)
def test_names_are_distinct_within_a_registry(what):
    _, registry, _, name = BY_WHAT[what]
    names = [name(entry) for entry in registry.values()]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("what", BY_WHAT)
@pytest.mark.parametrize("unknown", ["fp64", "", "BF16", " bf16", None, 7, ["bf16"]])
def test_an_unknown_id_is_refused_with_the_ids_there_are(what, unknown):
    _, registry, parse, _ = BY_WHAT[what]
    with pytest.raises(ConfigError, match=f"^Unknown {what} ") as refused:
        parse(unknown)
    assert str(refused.value).endswith(f"choose one of: {', '.join(registry)}.")


def test_a_long_unknown_id_is_shortened_in_the_sentence():
    with pytest.raises(ConfigError) as refused:
        as_recipe_id("x" * 10_000)
    assert len(str(refused.value)) < 300 and repr("x" * 40) in str(refused.value)


@pytest.mark.parametrize(("what", "field"), [("scenario", "scenario"), ("recipe", "recipes"), ("dataset", "dataset"),
                                             ("optimizer", "optimizer"), ("activation", "activation")])
def test_a_configuration_with_an_unknown_id_is_refused_by_the_core(what, field):
    value = ("gelu",) if field == "recipes" else "gelu"
    with pytest.raises(ConfigError, match=f"Unknown {what} 'gelu'"):
        TrainConfig(**{field: value}).resolved()


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_a_scenario_chooses_only_ids_of_the_registries(scenario_id):
    scenario = SCENARIOS[scenario_id]
    assert set(scenario.recipes) <= set(RECIPES)
    assert scenario.dataset in DATASETS and scenario.optimizer in OPTIMIZERS and scenario.activation in ACTIVATIONS


# -- the recipes' colours and dashes ------------------------------------------------------------------------


@pytest.mark.parametrize("recipe_id", RECIPES)
def test_every_recipe_has_a_light_and_a_dark_colour_and_a_dash_pattern(recipe_id):
    recipe = RECIPES[recipe_id]
    assert HEX_COLOUR.fullmatch(recipe.colour.light) and HEX_COLOUR.fullmatch(recipe.colour.dark)
    assert recipe.colour.light != recipe.colour.dark
    assert all(isinstance(n, int) and n > 0 for n in recipe.dash)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_two_recipes_share_a_colour(scheme):
    colours = [getattr(r.colour, scheme) for r in RECIPES.values()]
    assert len(set(colours)) == len(colours)
