"""A parameter a policy does not take is named with the parameters it does take, never with the
name of the class behind the policy."""

from __future__ import annotations

import pytest

from gangviz.policies import make_policy


@pytest.mark.parametrize("name, takes", [
    ("bc", "occupy"), ("brms", "occupy, extra_slots_on"), ("gs", "mpl, decide, cut_at_departure, after_cut"),
    ("random", "seed"), ("easy", "estimates, kill"),
])
def test_an_unknown_parameter_names_what_the_policy_takes(name, takes):
    with pytest.raises(ValueError) as err:
        make_policy(name, x=1)
    message = str(err.value)
    assert message.lower().startswith(f"policy {name}: unknown parameter 'x'")
    assert f"(it takes: {takes})" in message
    assert "__init__" not in message and "()" not in message


def test_the_space_sharing_factory_says_the_same():
    with pytest.raises(ValueError, match=r"unknown parameter 'x' \(it takes: estimates, kill\)"):
        make_policy("conservative", x=1)


def test_known_parameters_still_build_the_policy():
    assert make_policy("brms", occupy="block").name.lower() == "brms"
    assert make_policy("easy", estimates="exact").estimates == "exact"


@pytest.mark.parametrize("cls, param", [("GS", "q"), ("BGS", "migration_cost"), ("MGS", "mlp")])
def test_an_ibm_policy_refuses_a_parameter_its_entry_does_not_declare(cls: str, param: str) -> None:
    from gangviz.policies.ibm import gs as ibm

    with pytest.raises(TypeError, match=param):
        getattr(ibm, cls)(**{param: 1})
    getattr(ibm, cls)(decide="boundary")  # a declared one is taken
