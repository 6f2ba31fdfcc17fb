"""The tampering matrix: one honest browser certificate of the shipped model and the ways to
tamper with it (or with the model it is checked against), each with the reasons the rule must
give.  tests/test_policy.py runs it on the Python rule and on the server's upload check, and
hands the same JSON to the page's rule (web/tests/policy-matrix.mjs)."""

from __future__ import annotations

import copy

from sketchpad.certify.run import certify
from sketchpad.certify.verify import browser_expectation
from sketchpad.model.loading import load_stepper
from sketchpad.model.onnx_stepper import browser_manifest

BROWSER_ENV = {
    "backend": "browser",
    "execution_provider": "wasm",
    "dtype": "float32",
    "library": {"browser": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0", "onnxruntime-web": "1.30.0"},
    "threads": {"wasm": 2, "cross_origin_isolated": True},
    "device": {"platform": "Linux", "architecture": "x86", "cores": 2, "adapter": None},
}


def honest_certificate(model_dir) -> tuple[dict, dict]:
    """(certificate, expectation): the shipped model's suite run through ONNX Runtime, written as
    the page writes it (the page runs the same graph), with a browser's environment."""
    st = load_stepper(model_dir, "onnx")
    cert = certify(st, batch_sizes=(1436, 97))
    files = browser_manifest(model_dir).files
    cert["subject"] = [{"name": n, "digest": {"sha256": d}} for n, d in sorted(files.items())] + [
        s for s in cert["subject"] if s["name"] == "sketchpad/data/views.jsonl"
    ]
    p = cert["predicate"]
    p["backend"] = {"name": "browser"}
    p["environment"] = copy.deepcopy(BROWSER_ENV)
    rows = browser_expectation(model_dir, 1.0).rows
    expect = {
        "backend": "browser",
        "files": files,
        "gate": 1.0,
        "environment": copy.deepcopy(BROWSER_ENV),
        "rows": rows,
    }
    return cert, expect


def _subject(cert, name):
    return next(s for s in cert["subject"] if s["name"] == name)


def edited_copies(model_dir, tmp) -> dict:
    """{case name: model directory}: copies of the model with model.json edited for real."""
    import json
    import shutil
    from pathlib import Path

    out = {}
    for name, edit in (
        ("an edited model.json", lambda m: m.update(gate=0.0)),
        (
            "swapped step tokens (model.json's step list)",
            lambda m: m["steps"].__setitem__(slice(0, 2), m["steps"][1::-1]),
        ),
    ):
        d = Path(tmp) / name.split()[1]
        shutil.copytree(model_dir, d, ignore=shutil.ignore_patterns("base", "adapter", "certificates", "onnx-*"))
        meta = json.loads((d / "onnx" / "model.json").read_text())
        edit(meta)
        (d / "onnx" / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
        out[name] = d
    return out


def hostile_copy(tmp) -> dict:
    """{case name: model directory}: the shipped export with a graph that reads its batch size."""
    from hostile import hostile_model

    return {"a graph that reads its batch size": hostile_model(tmp, "batch-size")}


def cases(cert: dict, expect: dict, edited: dict, hostile: dict | None = None) -> list[dict]:
    """[{name, cert, expect, codes, server, model_dir}]: `server` is False where only the device itself can
    tell (its environment, the gate it runs at); the server records such a certificate as the
    sender's claim.  `edited`: edited_copies(), whose files the loader hashes afresh (the
    case's model_dir: the server test serves that copy)."""
    out = []

    def case(name, codes, cert_fn=None, expect_fn=None, server=True, model_dir=None):
        c, e = copy.deepcopy(cert), copy.deepcopy(expect)
        if cert_fn:
            cert_fn(c)
        if expect_fn:
            expect_fn(e)
        out.append(
            {
                "name": name,
                "cert": c,
                "expect": e,
                "codes": codes,
                "server": server,
                "model_dir": str(model_dir) if model_dir else None,
            }
        )

    p = "predicate"
    case("untampered", [])
    case("missing a subject", ["subject-missing"], lambda c: c["subject"].remove(_subject(c, "onnx/model.onnx")))
    case(
        "missing the model code subject",
        ["subject-missing"],
        lambda c: c["subject"].remove(_subject(c, "sketchpad/web/onnx_stepper.js")),
    )
    case(
        "a subject's digest changed",
        ["subject-digest"],
        lambda c: _subject(c, "onnx/model.onnx")["digest"].update(sha256="0" * 64),
    )
    case("results for fewer views than V", ["per-view"], lambda c: c[p]["per_view"].pop())
    case(
        "a certificate claiming 1 of 1 views",
        ["view-set", "per-view"],
        lambda c: (
            c[p]["per_view"].__delitem__(slice(1, None)),
            c[p]["view_set"].update(count=1),
            c[p]["result"].update(views=1, passed_views=1),
        ),
    )
    case(
        "a view twice instead of another",
        ["per-view"],
        lambda c: c[p]["per_view"].__setitem__(1, copy.deepcopy(c[p]["per_view"][0])),
    )
    case(
        "a view twice, as one row too many",
        ["per-view"],
        lambda c: c[p]["per_view"].append(copy.deepcopy(c[p]["per_view"][0])),
    )
    case(
        "a view not in V",
        ["per-view"],
        lambda c: c[p]["per_view"].append(
            {"view": "ADD ZZZ", "expected": "0_ ADD", "got": "0_ ADD", "margin": 9.0, "pass": True}
        ),
    )
    case(
        "no view set",
        ["subject-missing", "view-set"],
        lambda c: (c[p].pop("view_set"), c["subject"].remove(_subject(c, "sketchpad/data/views.jsonl"))),
    )
    case(
        "a foreign view set",
        ["subject-digest", "view-set"],
        lambda c: (
            c[p]["view_set"].update(sha256="f" * 64),
            _subject(c, "sketchpad/data/views.jsonl")["digest"].update(sha256="f" * 64),
        ),
    )
    case("a forged pass on a wrong step", ["failed-views"], lambda c: c[p]["per_view"][5].update(got="9_ HALT"))
    case("a NaN margin", ["failed-views"], lambda c: c[p]["per_view"][7].update(margin=float("nan")))
    case("another device", ["environment"], lambda c: c[p]["environment"]["device"].update(cores=64), server=False)
    case(
        "another library version",
        ["environment"],
        lambda c: c[p]["environment"]["library"].update({"onnxruntime-web": "1.29.0"}),
        server=False,
    )
    case("no environment", ["environment"], lambda c: c[p].pop("environment"), server=False)
    case("margin below the drift rule", ["margin"], lambda c: c[p]["drift"].update(max_abs_logit_diff=3.0))
    case("no measured drift", ["margin"], lambda c: c[p].pop("drift"))
    # The floor alone refuses this one: no drift, so 2 x drift asks for nothing, and every
    # margin 0.5 is not above the floor of 1 (a rule without the floor would accept it).
    case(
        "no drift and every margin 0.5 (below the floor)",
        ["margin"],
        lambda c: (
            c[p]["drift"].update(max_abs_logit_diff=0.0),
            [r.update(margin=0.5) for r in c[p]["per_view"]],
        ),
    )
    case("another tool version", ["tool-version"], lambda c: c[p]["tool"].update(version="0.1.0"))
    case("another backend", ["backend"], lambda c: c[p]["backend"].update(name="torch"))
    case("not a certificate", ["format"], lambda c: c.update(predicateType="https://example.invalid/x"))
    for name, d in edited.items():
        files = browser_manifest(d).files
        case(name, ["subject-digest"], expect_fn=lambda e, files=files: e.update(files=files), model_dir=d)
    case("a gate other than the certificate's", ["gate"], expect_fn=lambda e: e.update(gate=0.5), server=False)
    case(
        "a graph the verifier finds not row-independent",
        ["rows"],
        expect_fn=lambda e: e.update(rows={"ok": False, "code": "rows-mix", "message": "node #3 mixes rows"}),
        server=False,
    )
    for name, d in (hostile or {}).items():
        ex = browser_expectation(d, 1.0)
        case(
            name,
            ["subject-digest", "rows"],
            expect_fn=lambda e, ex=ex: e.update(files=ex.files, rows=ex.rows),
            model_dir=d,
        )
        forged = [{"name": n, "digest": {"sha256": h}} for n, h in sorted(ex.files.items())]
        case(
            name + ", the certificate re-signed for it",
            ["rows"],
            cert_fn=lambda c, forged=forged: c.update(subject=forged + [_subject(c, "sketchpad/data/views.jsonl")]),
            expect_fn=lambda e, ex=ex: e.update(files=ex.files, rows=ex.rows),
            model_dir=d,
        )
    return out
