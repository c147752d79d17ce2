"""The runs of a comparison under queue orders: a policy given two or more orders of its own
runs once under each, labelled by its order; every other policy once, under its spec."""

from __future__ import annotations

import pytest

from gangviz.experiments.compare import labelled_runs, order_label


def test_one_policy_under_two_orders_gives_two_labelled_runs():
    runs = labelled_runs(["easy", "gs"], ["easy=arrival", "easy=orders/short.py:sjf"])
    assert runs == {"easy · arrival order": ("easy", None),
                    "easy · order short.py:sjf": ("easy", "orders/short.py:sjf"),
                    "gs": ("gs", None)}


def test_an_order_for_every_policy_and_one_of_its_own_keep_the_specs_as_labels():
    assert labelled_runs(["easy", "gs"], ["all.py:f", "easy=mine.py:g"]) == {
        "easy": ("easy", "mine.py:g"), "gs": ("gs", "all.py:f")}
    assert labelled_runs(["easy", "gs"], ["all.py:f", "easy=arrival"]) == {
        "easy": ("easy", None), "gs": ("gs", "all.py:f")}
    assert labelled_runs(["easy", "gs"], None) == {"easy": ("easy", None), "gs": ("gs", None)}


def test_two_files_of_one_name_are_told_apart_by_their_paths():
    runs = labelled_runs(["easy"], ["easy=a/o.py:f", "easy=b/o.py:f"])
    assert list(runs) == ["easy · order a/o.py:f", "easy · order b/o.py:f"]


@pytest.mark.parametrize("orders, text", [
    (["easy=a.py:f", "easy=a.py:f"], "the same order twice"),
    (["x.py:f", "y.py:g"], "two orders for every policy"),
    (["bc=a.py:f"], "not one of the policies compared"),
])
def test_orders_that_cannot_be_run_are_refused_by_name(orders, text):
    with pytest.raises(ValueError, match=text):
        labelled_runs(["easy", "gs"], orders)


def test_an_order_label_names_the_file_and_function():
    assert order_label("easy", "dir/shortest.py:sjf") == "easy · order shortest.py:sjf"
    assert order_label("easy", "dir/shortest.py:sjf", full=True) == "easy · order dir/shortest.py:sjf"
    assert order_label("fcfs", None) == "fcfs · arrival order"


def test_the_served_work_note_names_the_policy_of_an_ordered_run():
    from pathlib import Path

    from gangviz.experiments.compare import comparison_of_policy_runs, run_policies
    from gangviz.workloads.source import load_source

    root = Path(__file__).resolve().parents[2]
    src = load_source(str(root / "resources" / "workloads" / "KTH-SP2-1996-2.1-cln-first300.swf"))
    order = root / "examples" / "policies" / "shortest_first.py"
    runs = labelled_runs(["easy", "gs"], ["easy=arrival", f"easy={order}:shortest_first"])
    note = comparison_of_policy_runs(src.title, run_policies(src, [], runs=runs)).note
    assert "--policy easy:estimates=exact" in note and note.count("--policy") == 1


def test_a_policy_with_parameters_takes_its_own_orders():
    runs = labelled_runs(["easy:estimates=exact", "gs"],
                         ["easy:estimates=exact=arrival", "easy:estimates=exact=o.py:f"])
    assert runs["easy:estimates=exact · order o.py:f"] == ("easy:estimates=exact", "o.py:f")
    assert labelled_runs(["easy:estimates=exact", "gs"], ["easy:estimates=exact=o.py:f"]) == {
        "easy:estimates=exact": ("easy:estimates=exact", "o.py:f"), "gs": ("gs", None)}
