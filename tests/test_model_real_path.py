"""The real-checkpoint path, on a tiny random Qwen3.5 config: save in Hugging Face format,
load with the Auto classes, add the view/step tokens its tokenizer lacks, attach LoRA, train
a few steps, certify.  A few steps cannot fit V, so the certificate must say FAILED - without
any error on the way."""

import json

import pytest
import torch

from sketchpad.certify import policy
from sketchpad.certify.run import certify
from sketchpad.cli import main
from sketchpad.model.adapter import load_adapted
from sketchpad.model.backbone import load_base, save_base
from sketchpad.model.loading import load_stepper
from sketchpad.model.train import train_adapter, write_meta

from model_helpers import TEXT, one_thread, tiny_random_base  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_thread")


def test_save_load_lora_train_certify(tmp_path):
    base, tok = tiny_random_base(seed=5, with_sketch_tokens=False)  # like a foreign checkpoint
    ckpt = save_base(base, tok, tmp_path / "qwen3_5_tiny")
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in ckpt.iterdir()}
    assert json.loads((ckpt / "config.json").read_text())["model_type"] == "qwen3_5_text"

    loaded, tok2 = load_base(ckpt)  # Auto classes, from disk
    ids = torch.tensor([tok2(TEXT, add_special_tokens=False)["input_ids"]])
    with torch.no_grad():
        assert torch.equal(loaded(input_ids=ids).logits, base(input_ids=ids).logits)

    out = tmp_path / "adapted"
    info = train_adapter(out, base_dir=ckpt, max_steps=3, subset=64, progress=False)
    write_meta(out, None, info, base_source=str(ckpt))
    assert info["steps"] == 2 and not info["stopped_by_rule"]
    model, vt, gate = load_adapted(out)  # peft from_pretrained
    assert gate.layers > 0 and len(vt.steps) == 170

    st = load_stepper(out, "torch")
    stmt = certify(st, batch_sizes=(1436, 500))
    res = stmt["predicate"]["result"]
    assert res["views"] == 1436 and not res["passed"] and res["failed_views"] > 0
    verdict = policy.check(stmt, policy.expect_from(st))
    assert not verdict.ok and "failed-views" in verdict.codes()


def test_cli_train_on_a_given_base(tmp_path, capsys):
    base, tok = tiny_random_base(seed=6)
    ckpt = save_base(base, tok, tmp_path / "ckpt")
    code = main(
        ["train", "--base", str(ckpt), "--out", str(tmp_path / "m"), "--max-steps", "2", "--subset", "32", "--quiet"]
    )
    assert code == 1  # trained, certified, failed
    assert "FAILED" in capsys.readouterr().out
    assert (tmp_path / "m" / "certificates" / "torch.json").is_file()
    assert main(["train", "--base", str(tmp_path / "nothing"), "--out", str(tmp_path / "x")]) == 2
