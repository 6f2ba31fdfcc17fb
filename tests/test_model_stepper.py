"""End to end with the shipped model: every procedure, long operands, equal to Python's ints.
And the refusal: a model that does not pass certification on this device does not run."""

import random
import shutil
from math import gcd, isqrt

import pytest
from safetensors.torch import load_file, save_file

from sketchpad import solve
from sketchpad.certify.certified import Uncertified, load_certified
from sketchpad.cli import main
from sketchpad.model import DEFAULT_MODEL_DIR
from sketchpad.model.torch_stepper import TorchStepper
from sketchpad.views import load

from model_helpers import one_thread  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def stepper():
    return load_certified(None, "torch").stepper  # the model itself, under its certificate


def _floor_div(a, b):
    return a // b


def test_model_agrees_with_reference_on_every_view(stepper):
    entries = load()
    steps, margins = stepper.steps_and_margins([e["view"] for e in entries])
    assert steps == [e["step"] for e in entries]
    assert margins.min() >= 4.0
    single = stepper([entries[7]["view"]])  # batch of one: same answer
    assert single == [entries[7]["step"]]


def test_thousand_digit_sum(stepper):
    rnd = random.Random(1000)
    a, b = rnd.randrange(10**999, 10**1000), rnd.randrange(10**999, 10**1000)
    sol = solve(f"{a} + {b}", stepper=stepper)
    assert sol.value == a + b
    assert sol.views_presented >= 1000 and sol.stepper.startswith("model")
    # each distinct view of a batch is one forward row: 2 batches, at most 1 + 242 rows
    assert sol.batches == 2 and sol.forward_passes <= 500


def test_twenty_by_twenty_digit_product(stepper):
    rnd = random.Random(20)
    a, b = rnd.randrange(10**19, 10**20), rnd.randrange(10**19, 10**20)
    assert solve(f"{a} * -{b}", stepper=stepper).value == -a * b


@pytest.mark.parametrize("seed", range(4))
def test_random_problems_of_every_procedure(stepper, seed):
    rnd = random.Random(seed)

    def num(lo=1, hi=25):
        return rnd.choice((1, -1)) * rnd.randrange(0, 10 ** rnd.randint(lo, hi))

    a, b = num(), num()
    b = b or 7
    cases = {
        f"{a} + {b}": a + b,
        f"{a} - {b}": a - b,
        f"{a} * {b}": a * b,
        f"{a} // {b}": _floor_div(a, b),
        f"{a} % {b}": a % b,
        f"gcd({a}, {b})": gcd(a, b),
        f"sqrt({abs(a)})": isqrt(abs(a)),
        f"-({a})": -a,
    }
    for expr, want in cases.items():
        assert solve(expr, stepper=stepper).value == want, expr


def test_stepper_runs_the_network_every_time(stepper):
    """No memo: the same view twice is two forward passes (rows of the network's input)."""
    calls = []
    hook = stepper.model.get_base_model().model.embed_tokens.register_forward_hook(
        lambda m, inp, out: calls.append(out.shape[0])
    )
    try:
        v = load()[3]["view"]
        stepper([v])
        stepper([v])
        stepper([v, v])
    finally:
        hook.remove()
    assert calls == [1, 1, 2]


@pytest.fixture()
def scrambled(tmp_path):
    """A copy of the shipped model whose adapter no longer computes the steps."""
    d = tmp_path / "m"
    shutil.copytree(DEFAULT_MODEL_DIR, d, ignore=shutil.ignore_patterns("onnx", "certificates"))
    path = d / "adapter" / "adapter_model.safetensors"
    weights = load_file(path)
    key = next(k for k in weights if "lm_head" in k and "lora_B" in k)
    weights[key] = weights[key].flip(0).contiguous()
    save_file(weights, path)
    return d


def test_refuses_a_model_that_fails_certification_here(scrambled):
    with pytest.raises(Uncertified, match=r"does not pass certification on this device .*Failing views: \S+ \S+ gives"):
        load_certified(scrambled, announce=None)
    st = load_certified(scrambled, allow_uncertified=True, announce=None)
    assert isinstance(st.stepper, TorchStepper) and st.certificate["source"].startswith("none")


def test_a_gate_it_was_not_certified_at_is_refused():
    with pytest.raises(Uncertified, match="gate 0.5"):
        load_certified(DEFAULT_MODEL_DIR, "torch", gate=0.5, announce=None)


def test_cli_refusal_and_override(scrambled, capsys):
    assert main(["solve", "--model", str(scrambled), "12 + 30"]) == 1
    assert "does not pass certification" in capsys.readouterr().err
    assert main(["solve", "--model", str(scrambled), "--allow-uncertified", "--stepper", "model", "12 + 30"]) in (0, 3)
    capsys.readouterr()
    assert main(["solve", "--model", str(scrambled / "nope"), "1+1"]) == 2
