"""The growth curves' fit: the exponent of a known power law, and the goals it is judged by."""

import pytest

from tools.growth.fit import Curve, fit_exponent


@pytest.mark.parametrize("power", [0.0, 0.5, 1.0, 2.0])
def test_the_fit_recovers_the_exponent_of_a_power_law(power: float) -> None:
    sizes = (100, 1000, 5000, 10000)
    assert fit_exponent(sizes, [3.0 * n**power for n in sizes]) == pytest.approx(power, abs=1e-3)


def test_a_zero_count_is_lifted_rather_than_an_infinite_slope() -> None:
    assert fit_exponent((100, 1000, 10000), (0.0, 1.0, 1.0)) == pytest.approx(0.0, abs=1e-9)


def test_a_curve_over_its_exponent_or_its_limit_misses_its_goal() -> None:
    flat = Curve("a", "a", "ms", (100, 1000, 10000), (5.0, 5.5, 6.0), limit=100.0)
    assert flat.goal_met
    assert not Curve("b", "b", "ms", (100, 1000, 10000), (1.0, 10.0, 100.0)).goal_met
    assert not Curve("c", "c", "ms", (100, 1000, 10000), (150.0, 150.0, 150.0), limit=100.0).goal_met
    linear = Curve("d", "d", "bytes", (100, 1000), (1e3, 1e4), max_exponent=1.05)
    assert linear.goal_met and linear.as_json()["exponent"] == pytest.approx(1.0)


def test_a_curve_needs_two_different_sizes() -> None:
    with pytest.raises(ValueError):
        fit_exponent((100,), (1.0,))
    with pytest.raises(ValueError):
        fit_exponent((100, 100), (1.0, 2.0))
