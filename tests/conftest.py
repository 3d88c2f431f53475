"""The quick tier: `make test-quick` runs every test not marked `slow`, for the edit-test loop; `make test` runs
them all. Slow are the suites that start servers or browsers (browser, system, fuzz), every PostgreSQL case, and
the tests that took over a second and a half each here (pytest --durations), named below."""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).parent
SLOW_SUITES = ("browser", "system", "fuzz")
SLOW_TESTS = {
    "unit/formats/test_codec_decode.py::test_next_up_and_down_step_through_the_sorted_values",
    "unit/formats/test_codec_decode.py::test_decode_every_tfloat32_pattern",
    "unit/formats/test_codec_decode.py::test_ulp_is_the_gap_to_the_next_larger_magnitude",
    "unit/formats/test_codec_encode.py::test_encode_agrees_with_ml_dtypes",
    "unit/formats/test_codec_encode.py::test_encode_float32_agrees_with_numpy_casts_from_float64",
    "unit/formats/test_codec_encode.py::test_encode_float64_agrees_with_correctly_rounded_float",
    "unit/formats/test_codec_encode.py::test_encode_tfloat32_rounds_float32_to_nearest_even",
    "unit/formats/test_codec_encode.py::test_encode_nf4_is_the_nearest_codebook_value",
    "unit/training/test_training_scenarios.py::test_small_updates_weights_without_a_master_copy_fall_far_behind",
    "unit/training/test_training_scenarios.py::"
    "test_tiny_gradients_fp16_without_scaling_flushes_and_stalls_and_loss_scaling_or_a_wide_range_recovers",
    "unit/training/test_training_scenarios.py::"
    "test_large_activations_scaled_fp16_gradients_overflow_and_the_dynamic_scaler_backs_off",
    "unit/training/test_training_scenarios.py::"
    "test_large_activations_fp8_loses_by_the_precision_of_its_forward_pass_not_by_training",
    "unit/training/test_training_scenarios.py::"
    "test_baseline_every_recipe_ends_within_0_01_of_fp32_closer_than_fp32_varies_between_seeds",
    "unit/training/test_torch_backend.py::test_scenario_lessons_come_out_of_torch_arithmetic_too",
    "unit/training/test_torch_backend.py::test_fp32_loss_curves_of_numpy_and_torch_agree",
    "unit/training/test_pytorch_script.py::test_the_scripts_losses_on_a_cpu_are_the_torch_backends",
    "unit/training/test_pytorch_script.py::test_the_fp8_script_says_why_it_runs_bf16_on_a_cpu_and_then_trains_as_bf16",
    "unit/training/test_pytorch_script.py::test_every_script_passes_the_projects_linter",
    "unit/test_production_settings.py::test_fresh_random_keys_are_never_taken_for_patterned_ones",
    "unit/test_production_settings.py::test_serve_stops_with_the_sentence_not_a_traceback",
    "store/test_store_cli.py::test_the_command_runs_as_a_program",
    "store/test_store_cli.py::test_keys_prints_the_previous_public_keys_after_the_current_one",
    "store/test_store_cli.py::test_keys_makes_and_keeps_the_development_key",
    "web/test_page_cache.py::test_the_cache_is_bounded",
    "web/test_quiz_farming.py::test_a_bot_that_memorises_the_feedback_learns_the_written_questions_and_still_does_not_pass",
    "web/test_forms_hostile.py::test_fuzzed_quiz_attempts_keep_their_first_answers_and_finish",
    "web/test_forms_hostile.py::test_every_form_of_every_page_takes_hostile_input_safely",
    "web/test_certificates.py::test_ten_thousand_random_well_formed_ids_never_verify",
    "web/test_train.py::test_a_run_whose_loss_scale_collapses_says_it_diverged_on_the_stream_the_page_and_the_api",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(_HERE).as_posix() if item.path.is_relative_to(_HERE) else ""
        name = getattr(item, "originalname", item.name)
        if (where.split("/", 1)[0] in SLOW_SUITES or "postgresql" in item.name
                or f"{where}::{name}" in SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
