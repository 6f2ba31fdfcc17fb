"""End to end with the shipped model: every procedure, long operands, equal to Python's ints.
And the refusal: no passing certificate for the backend in use, no model stepper."""
import json
import random
import shutil
from math import gcd, isqrt

import pytest

from sketchpad import solve
from sketchpad.cli import main
from sketchpad.errors import InputError
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.stepper import ModelStepper, load_default_stepper, load_stepper
from sketchpad.views import load
from model_helpers import one_thread  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def stepper():
    return load_default_stepper()


def _floor_div(a, b):
    return a // b


def test_model_agrees_with_reference_on_every_view(stepper):
    entries = load()
    steps, margins = stepper.steps_and_margins([e["view"] for e in entries])
    assert steps == [e["step"] for e in entries]
    assert margins.min() >= 4.0
    single = stepper([entries[7]["view"]])                 # batch of one: same answer
    assert single == [entries[7]["step"]]


def test_thousand_digit_sum(stepper):
    rnd = random.Random(1000)
    a, b = rnd.randrange(10 ** 999, 10 ** 1000), rnd.randrange(10 ** 999, 10 ** 1000)
    sol = solve(f"{a} + {b}", stepper=stepper)
    assert sol.value == a + b
    assert sol.forward_passes >= 1000 and sol.stepper.startswith("model")


def test_twenty_by_twenty_digit_product(stepper):
    rnd = random.Random(20)
    a, b = rnd.randrange(10 ** 19, 10 ** 20), rnd.randrange(10 ** 19, 10 ** 20)
    assert solve(f"{a} * -{b}", stepper=stepper).value == -a * b


@pytest.mark.parametrize("seed", range(4))
def test_random_problems_of_every_procedure(stepper, seed):
    rnd = random.Random(seed)

    def num(lo=1, hi=25):
        return rnd.choice((1, -1)) * rnd.randrange(0, 10 ** rnd.randint(lo, hi))

    a, b = num(), num()
    b = b or 7
    cases = {f"{a} + {b}": a + b, f"{a} - {b}": a - b, f"{a} * {b}": a * b,
             f"{a} // {b}": _floor_div(a, b), f"{a} % {b}": a % b,
             f"gcd({a}, {b})": gcd(a, b), f"sqrt({abs(a)})": isqrt(abs(a)), f"-({a})": -a}
    for expr, want in cases.items():
        assert solve(expr, stepper=stepper).value == want, expr


def test_stepper_runs_the_network_every_time(stepper):
    """No memo: the same view twice is two forward passes (rows of the network's input)."""
    calls = []
    hook = stepper.model.get_base_model().model.embed_tokens.register_forward_hook(
        lambda m, inp, out: calls.append(out.shape[0]))
    try:
        v = load()[3]["view"]
        stepper([v]); stepper([v]); stepper([v, v])
    finally:
        hook.remove()
    assert calls == [1, 1, 2]


@pytest.fixture()
def uncertified(tmp_path):
    d = tmp_path / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d)
    shutil.rmtree(d / "certificates")
    return d


def test_refuses_uncertified_model(uncertified):
    with pytest.raises(InputError, match="no certificate for backend 'torch'"):
        load_stepper(uncertified)
    assert isinstance(load_stepper(uncertified, allow_uncertified=True), ModelStepper)


def test_refuses_failed_or_mismatched_certificate(uncertified, tmp_path):
    cert = json.loads((DEFAULT_MODEL_DIR / "certificates" / "torch.json").read_text())
    (uncertified / "certificates").mkdir()
    cert["predicate"]["result"]["passed"] = False
    (uncertified / "certificates" / "torch.json").write_text(json.dumps(cert))
    with pytest.raises(InputError, match="does not hold"):
        load_stepper(uncertified)
    with pytest.raises(InputError, match="gate"):
        load_stepper(DEFAULT_MODEL_DIR, gate=0.5)


def test_cli_refusal_and_override(uncertified, capsys):
    assert main(["solve", "--model", str(uncertified), "12 + 30"]) == 2
    assert "no certificate" in capsys.readouterr().err
    assert main(["solve", "--model", str(uncertified), "--allow-uncertified", "12 + 30"]) == 0
    assert capsys.readouterr().out.strip() == "42"
    assert main(["solve", "--model", str(uncertified / "nope"), "1+1"]) == 2
