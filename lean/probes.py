"""Write the negative probes of the Lean check (`bash lean/check.sh --negative`).

Each probe is a small change to the checked sources that must make the check fail, and where:

* fault-table:         Table.lean generated with one wrong ADD step (3 + 4 = 8): Facts fails at
                       `add_col`, the finite fact the reduction and `add_correct` rest on;
* sorry:               a theorem proved by `sorry`: its module fails;
* forbidden-axiom:     a theorem proved from a declared axiom: the axiom report forbids it;
* golden-edit:         web/golden/trace-001.json with one step changed: `golden_001` fails;
* remainder-mutation:  issue 21's mutation, applied to the shipped Python (a copy of the package):
                       long division keeps the remainder one digit longer (`rem[:lb]` ->
                       `rem[:lb+1]`); its sequential trace of `1000 // 8` still gives the right
                       quotient, and its theorem, `golden_088`, fails (the sequential trace is
                       the cheapest: its parallel twin, `golden_031`, fails the same way).

Usage: python lean/probes.py OUTDIR  (writes OUTDIR/manifest.json; lean/check.py runs them).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

LEAN = Path(__file__).resolve().parent
ROOT = LEAN.parent
sys.path.insert(0, str(ROOT))  # lean/ is not a package: derive/ and sketchpad/ from the checkout

from derive import lean as gen_table  # noqa: E402
from derive.leangen import golden as gen_golden  # noqa: E402
from sketchpad.symbols import ADD, Step, View  # noqa: E402

MUTATION = re.compile(r"rem\[:\s*lb\s*\]")  # the bring-down in `divide_rows`
MUTATED = "rem[: lb + 1]"
MUTATION_PROBLEM = "1000 // 8"  # golden trace 088 (sequential mode)


def _module(body: str, imports: str) -> str:
    head = f"module\n\n{imports}\n\n@[expose] public noncomputable section\n\n"
    return head + f"namespace Sketchpad\n\n{body}\nend Sketchpad\n"


def fault_table() -> dict:
    text = gen_table.generate(fault=(View(ADD, "3", "4", "_"), Step("8", "_", ADD)))
    return {
        "name": "fault-table",
        "what": "one wrong ADD step in the generated table (3 + 4 = 8)",
        "files": {"Sketchpad/Table.lean": text},
        "compile": ["Sketchpad.Table", "Sketchpad.Facts"],
        "expect": {"module": "Sketchpad.Facts", "error": "add_col"},
    }


def sorry_probe() -> dict:
    body = "theorem probe_sorry : (1 : Nat) = 2 := by\n  sorry\n"
    return {
        "name": "sorry",
        "what": "a theorem proved by `sorry`",
        "files": {"Sketchpad/ProbeSorry.lean": _module(body, "public import Sketchpad.Basic")},
        "compile": ["Sketchpad.ProbeSorry"],
        "expect": {"module": "Sketchpad.ProbeSorry", "error": "sorry"},
    }


def axiom_probe() -> dict:
    axioms = (LEAN / "Sketchpad" / "Axioms.lean").read_text()
    report = axioms[axioms.index("namespace Sketchpad.AxiomReport") : axioms.index("end Sketchpad.AxiomReport")]
    text = (
        "module\n\nimport Lean\nimport all Sketchpad.Basic\n\nnamespace Sketchpad\n\n"
        "axiom probe_cheat : (1 : Nat) = 2\n\ntheorem probe_uses_axiom : (1 : Nat) = 2 := probe_cheat\n\n"
        "end Sketchpad\n\n" + report + "end Sketchpad.AxiomReport\n\n"
        "open Sketchpad.AxiomReport in\n#eval report [``Sketchpad.probe_uses_axiom]\n"
    )
    return {
        "name": "forbidden-axiom",
        "what": "a theorem proved from a declared axiom",
        "files": {"Sketchpad/ProbeAxiom.lean": text},
        "compile": ["Sketchpad.ProbeAxiom"],
        "expect": {"module": "Sketchpad.ProbeAxiom", "axiom": "Sketchpad.probe_uses_axiom"},
    }


def _golden_module(theorems: list[str]) -> str:
    head = gen_golden.HEADER.format(source="a negative probe of lean/check.py")
    return head + "\n" + "\n".join(theorems) + "\nend Sketchpad\n"


def golden_edit() -> dict:
    trace = json.loads((gen_golden.GOLDEN / "trace-001.json").read_text())
    steps = trace["batches"][-1]["steps"]
    steps[0] = ("9" if steps[0][0] != "9" else "8") + steps[0][1:]  # one step's symbol changed
    theorem = gen_golden.theorem("golden_001", "web/golden/trace-001.json (one step edited)", trace)
    return {
        "name": "golden-edit",
        "what": "web/golden/trace-001.json with one step changed",
        "files": {"Sketchpad/ProbeGolden.lean": _golden_module([theorem])},
        "compile": ["Sketchpad.ProbeGolden"],
        "expect": {"module": "Sketchpad.ProbeGolden", "error": "golden_001"},
    }


def mutated_trace(workdir: Path) -> dict:
    """`1000 // 8` traced (sequential mode) by a copy of the shipped Python with the mutation applied."""
    pkg = workdir / "sketchpad"
    shutil.copytree(ROOT / "sketchpad", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    # the subpackages that live in top-level folders (pyproject's package-dir), so that the copy
    # imports whole under any interpreter, the venv's editable install or none
    layout = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for name, folder in layout.items():
        if name.startswith("sketchpad.") and folder != "web":  # web/: the page, no code the solve runs
            shutil.copytree(ROOT / folder, pkg / name.split(".", 1)[1], ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "derive", workdir / "derive", ignore=shutil.ignore_patterns("__pycache__"))
    hits = [(p, MUTATION.findall(p.read_text())) for p in sorted(pkg.rglob("*.py"))]
    hits = [(p, n) for p, n in hits if n]
    if len(hits) != 1 or len(hits[0][1]) != 1:
        raise SystemExit(
            f"probes: the remainder mutation `rem[:lb]` should occur once in sketchpad/, found {hits}; "
            "update MUTATION in lean/probes.py to the shipped division"
        )
    path = hits[0][0]
    path.write_text(MUTATION.sub(MUTATED, path.read_text()))
    code = (
        "import json, sys\nfrom derive.golden import trace\n"
        f"json.dump(trace({MUTATION_PROBLEM!r}, False), sys.stdout)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=workdir, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("probes: the mutated copy of the package could not trace: " + out.stderr.strip()[-600:])
    return json.loads(out.stdout)


def remainder_mutation() -> dict:
    index = json.loads((gen_golden.GOLDEN / "index.json").read_text())
    names = {(e["expr"], e["mode"]): "golden_" + e["file"][6:9] for e in index}
    with tempfile.TemporaryDirectory() as tmp:
        t = mutated_trace(Path(tmp))
    name = names[(t["expr"], t["mode"])]
    committed = json.loads((gen_golden.GOLDEN / f"trace-{name[7:]}.json").read_text())
    if t["result"] != committed["result"] or t["batches"] == committed["batches"]:
        raise SystemExit("probes: the mutated division should give the same quotient on other batches")
    theorem = gen_golden.theorem(name, f"{t['expr']} (mutated Python)", t)
    return {
        "name": "remainder-mutation",
        "what": f"division keeps the remainder one digit longer in the Python ({MUTATION_PROBLEM}, sequential)",
        "files": {"Sketchpad/ProbeMutation.lean": _golden_module([theorem])},
        "compile": ["Sketchpad.ProbeMutation"],
        "expect": {"module": "Sketchpad.ProbeMutation", "error": name},
    }


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    probes = [fault_table(), sorry_probe(), axiom_probe(), golden_edit(), remainder_mutation()]
    (out / "manifest.json").write_text(json.dumps(probes, indent=1))
    print(f"wrote {len(probes)} probes to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
