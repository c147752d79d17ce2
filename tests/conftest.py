"""Test-wide settings: Qt renders offscreen, so the suite needs no display; the tests that take
seconds are marked ``slow`` (``make test-quick`` leaves them out).

A test is marked ``slow`` at its definition (a fuzz campaign, a README command in a
subprocess), or here, in :data:`SLOW_TESTS`: the tests measured at a second or more each with
``pytest --durations=0`` under pytest-xdist on two cores. An entry is a test file, a test
(``file::name``: every parametrization of it) or one parametrization (``file::name[id]``); an
entry that names no collected test of a file that was collected is an error, so a renamed test
cannot leave the quick tier silently.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SLOW_TESTS = frozenset("""
tests/core/test_pairwise_repack.py::test_pairwise_gather_frees_the_range_keeping_processors
tests/core/test_params.py::test_split_spec_never_raises_anything_but_param_error
tests/core/test_params.py::test_the_command_line_sweep_files_and_api_read_the_same_way
tests/core/test_properties.py::test_apply_then_invert_restores_the_state_exactly
tests/core/test_properties.py::test_both_merge_plans_are_the_two_one_way_plans_with_their_costs
tests/core/test_properties.py::test_gather_keeps_processors_and_rows_and_frees_the_range
tests/core/test_properties.py::test_property2_removes_exactly_one_slot_when_every_processor_has_an_idle_slot
tests/experiments/test_compare.py::test_cli_formats_agree
tests/experiments/test_repro_runner.py::test_killing_a_worker_mid_run_loses_no_run
tests/experiments/test_repro_zhou.py::test_a_tiny_run_reports_every_scheme_and_metric
tests/experiments/test_repro_zhou.py::test_extra_slots_on_changes_only_the_multi_slot_schemes
tests/experiments/test_repro_zhou.py::test_one_and_two_workers_give_the_same_numbers
tests/experiments/test_runner.py::test_a_dying_worker_fails_only_its_task
tests/experiments/test_runner.py::test_failures_are_returned_or_raised
tests/experiments/test_sweep.py::test_a_dying_worker_fails_its_cells_and_keeps_the_rest
tests/experiments/test_sweep.py::test_failed_runs_are_written_and_retried_on_resume
tests/experiments/test_sweep.py::test_same_results_with_one_and_two_workers
tests/fast/test_compiled_gang.py::test_a_zhang_cell_gives_the_same_figures_on_both_engines
tests/fast/test_compiled_gang.py::test_the_compiled_loop_gives_the_reference_engines_jobs
tests/fast/test_placement.py::test_buddy_matrices_are_the_reference_engines
tests/fast/test_placement.py::test_gs_and_mgs_matrices_are_the_reference_engines
tests/gui/test_compare_window.py::test_exports_write_valid_csv_png_and_svg
tests/gui/test_compare_window.py::test_summary_table_equals_gangviz_compare_and_marks_the_best
tests/gui/test_compare_window.py::test_the_clock_reads_a_human_time_on_a_trace_and_slices_on_a_model
tests/gui/test_export.py::test_cancel_removes_the_partial_gif
tests/gui/test_export.py::test_gif_has_one_frame_per_distinct_animation_frame_and_the_jobs_colours
tests/gui/test_export.py::test_window_export_with_progress
tests/gui/test_headless.py::test_a_broken_playlist_entry_never_hangs_the_process
tests/gui/test_lecture.py::test_every_builtin_scenario_opens_with_its_view_and_explanation
tests/gui/test_session.py::test_compare_window_keeps_its_pane_order_and_space_sharing_policies
tests/gui/test_session.py::test_save_and_reopen_restores_every_field
tests/gui/test_sweep_gui.py::test_cancel_keeps_the_finished_runs_and_resume_completes_them
tests/hostile/test_limits.py::test_matrix_growth_is_checked_against_the_budget
tests/hostile/test_limits.py::test_warnings_reach_the_user_in_run_and_compare
tests/hostile/test_processes.py::test_sigkill_leaves_no_worker_behind_and_resume_gives_the_same_rows
tests/multisite/test_batch_repro.py::test_results_do_not_depend_on_the_number_of_workers
tests/multisite/test_compiled.py::test_compiled_and_reference_metrics_are_identical
tests/policies/ibm/test_backfill.py::test_conservative_protects_every_reservation
tests/policies/ibm/test_metrics_workload.py::test_cells_on_worker_processes_equal_cells_in_process
tests/policies/ibm/test_metrics_workload.py::test_repro_prints_the_table_beside_the_papers
tests/policies/test_slots.py::test_the_relaxed_level_is_the_tree_level_with_replica_cells_counted_idle
tests/results/test_api.py::test_example_script_writes_its_plot
tests/results/test_figures.py::test_shipped_traces_have_no_slowdown_below_one
tests/results/test_jobs_out.py::test_sweep_keeps_jobs_of_space_sharing_runs_too
tests/results/test_jobs_out.py::test_sweep_keeps_one_jobs_file_per_run_next_to_the_results
tests/results/test_schema.py::test_compare_marks_what_a_family_lacks_and_ranks_only_those_that_have_it
tests/results/test_schema.py::test_every_commands_json_follows_the_schema
tests/spacesharing/test_checker.py::test_compiled_conservative_equals_the_python_loop
tests/spacesharing/test_checker.py::test_conservative_reserves_for_every_waiting_job
tests/spacesharing/test_checker.py::test_every_schedule_follows_its_rule
tests/spacesharing/test_columns.py::test_trace_columns_give_the_schedule_and_metrics_of_the_workload
tests/spacesharing/test_commands.py::test_compare_mixes_gang_and_space_sharing_in_one_ibm_table
tests/spacesharing/test_conservativeloop.py::test_c_loop_equals_python_loop_bit_for_bit
tests/spacesharing/test_conservativeloop.py::test_c_loop_equals_python_loop_on_shipped_traces
tests/spacesharing/test_easyloop.py::test_c_loop_equals_python_loop_bit_for_bit
tests/test_factory.py::test_gangviz_compare_takes_the_compiled_loop_for_covered_runs
tests/test_layer_walk.py::test_a_run_goes_down_the_layers
tests/test_layer_walk.py::test_a_window_step_goes_down_the_layers
tests/test_layers.py::test_only_the_factory_constructs_an_engine
tests/test_no_source_probing.py::test_no_module_probes_a_source
tests/test_qt_free.py::test_every_non_gui_module_imports_without_qt
tests/test_run_stream.py::test_a_streamed_model_run_prints_what_the_whole_run_prints
tests/userpolicy/test_examples.py::test_each_example_runs_in_run_compare_and_the_api
tests/userpolicy/test_order_everywhere.py::test_compare_orders_every_policy_or_one
tests/userpolicy/test_order_everywhere.py::test_conservative_takes_a_queue_order_on_the_command_line
tests/workloads/test_swf_roundtrip.py::test_fast_and_exact_parsers_agree
tests/workloads/test_swf_roundtrip.py::test_write_then_read_gives_the_same_jobs
tests/workloads/test_swf_scan.py::test_a_number_reads_as_float_reads_it
tests/workloads/test_swf_scan.py::test_a_table_is_what_loadtxt_reads
tests/workloads/test_swf_scan.py::test_a_token_is_read_exactly_when_the_exact_reader_calls_it_a_number
tests/workloads/test_synthetic.py::test_hyper_erlang_workload_moments_factors_and_estimates
""".split())


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`SLOW_TESTS` ``slow``; fail on an entry that matches nothing
    (unless the command line picks single tests)."""
    used: set[str] = set()
    files = set()
    for item in items:
        path, _, rest = item.nodeid.partition("::")
        files.add(path)
        for key in (path, f"{path}::{rest.split('[')[0]}", item.nodeid):
            if key in SLOW_TESTS:
                item.add_marker(pytest.mark.slow)
                used.add(key)
    stale = sorted(k for k in SLOW_TESTS - used if k.partition("::")[0] in files and "::" in k)
    if stale and not any("::" in str(arg) for arg in config.args):
        raise pytest.UsageError(f"tests/conftest.py SLOW_TESTS names no such test: {', '.join(stale)}")
