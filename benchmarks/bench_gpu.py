"""The GPU figures, in one command, for a machine with a GPU (none has been lent to this project
yet, so its output is not committed):

    python benchmarks/bench_gpu.py [--workdir /tmp/sketchpad-gpu] [--skip-full-size]

1. Chromium's WebGPU on the real adapter certifies the shipped model: the page's own suite, its
   float32 export and its float16 variant, `provider=webgpu` (the certificate names the adapter;
   a fallback adapter is reported as such, not counted as a GPU).
2. At full size (a Qwen3.5-0.8B-shaped checkpoint with random weights, bench_paper_scale.py):
   the export and its float16 variant, then seconds per batch of V for batches of 1, 16, 64 and
   256 views on CUDA (ONNX Runtime's CUDA provider when onnxruntime-gpu is installed, and PyTorch
   on CUDA when torch has it) and on WebGPU in the page (the float16 variant).

Writes benchmarks/results/gpu.json and gpu.md.  Needs what scripts/setup.sh installs, a GPU with
a driver Chromium's Vulkan backend can use, and about 10 GB of disk for the full-size model.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402

from benchmarks.bench_paper_scale import build_model_dir  # noqa: E402
from sketchpad.certify.browser_backend import page_for, run_page_suite  # noqa: E402
from sketchpad.certify.chromium import browser  # noqa: E402
from sketchpad.export.encoding import apply  # noqa: E402
from sketchpad.model import DEFAULT_MODEL_DIR  # noqa: E402
from sketchpad.server.live import page_server  # noqa: E402
from sketchpad.views import load  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
BATCHES = (1, 16, 64, 256)

PAGE_TIMES = """async ([url, sizes]) => {
  const { loadModel, loadViewSet } = await import('/onnx_stepper.js');
  const t = performance.now();
  const model = await loadModel({ modelUrl: url, provider: 'webgpu' });
  const load = performance.now() - t;
  const views = (await loadViewSet()).views.map((r) => r.view);
  const out = { load_ms: load, provider: model.provider, adapter: model.info.adapter, per_batch_ms: {} };
  for (const n of sizes) {
    const vs = Array.from({ length: n }, (_, i) => views[i % views.length]);
    await model.logits(vs);                                   // the first run compiles the shaders
    const t0 = performance.now();
    await model.logits(vs);
    out.per_batch_ms[n] = performance.now() - t0;
  }
  model.release();
  return out;
}"""


def webgpu_certify(model_dir: Path) -> dict:
    out = {}
    for variant in ("float32", "float16"):
        with page_server(model_dir) as url, page_for(url, "webgpu", webgpu=True, query=f"&variant={variant}") as page:
            run = run_page_suite(page)
            p = run["certificate"]["predicate"]
            out[variant] = {
                "seconds": round(run["seconds"], 2),
                "result": {k: p["result"][k] for k in ("passed", "views", "passed_views", "min_margin")},
                "drift": p["drift"]["max_abs_logit_diff"],
                "adapter": p["environment"]["device"].get("adapter"),
                "result_text": run["result_text"],
            }
    return out


def build_and_export(work: Path) -> Path:
    m = work / "m"
    if not (m / "onnx" / "model.json").is_file():
        build_model_dir(m)
        for args in (["--model", str(m), "--out", str(m / "onnx")], ["--out", str(m / "onnx"), "--dtype", "float16"]):
            extra = ["--variants-only"] if "--dtype" in args else []
            subprocess.run([sys.executable, "-m", "sketchpad", "export", *args, *extra], check=True, cwd=ROOT)
    return m


def cuda_times(m: Path) -> dict:
    out = {}
    meta = json.loads((m / "onnx" / "model.json").read_text())
    ids = np.array([apply(meta["encoding"], r["view"]) for r in load()], dtype=np.int64)
    if "CUDAExecutionProvider" in ort.get_available_providers():
        for variant in ("onnx", "onnx-float16"):
            s = ort.InferenceSession(str(m / variant / "model.onnx"), providers=["CUDAExecutionProvider"])
            times = {}
            for n in BATCHES:
                feeds = {"input_ids": np.resize(ids, (n, ids.shape[1])), "gate": np.ones(1, np.float32)}
                s.run(None, feeds)
                t = time.perf_counter()
                s.run(None, feeds)
                times[n] = round(time.perf_counter() - t, 4)
            out[f"onnxruntime-cuda {variant}"] = times
    else:
        out["onnxruntime-cuda"] = "not available: install onnxruntime-gpu"
    import torch  # lazy: torch is the [train] extra

    if torch.cuda.is_available():
        from sketchpad.model.backbone import forward_logits  # lazy: imports torch, the [train] extra
        from sketchpad.model.torch_stepper import load as load_torch  # lazy: imports torch, the [train] extra

        st = load_torch(m)
        model = st.model.to("cuda")
        times = {}
        with torch.inference_mode():
            for n in BATCHES:
                x = torch.as_tensor(np.resize(ids, (n, ids.shape[1])), device="cuda")
                forward_logits(model, x, rows=st.vocab.step_ids.to("cuda"))
                torch.cuda.synchronize()
                t = time.perf_counter()
                forward_logits(model, x, rows=st.vocab.step_ids.to("cuda"))
                torch.cuda.synchronize()
                times[n] = round(time.perf_counter() - t, 4)
        out[f"torch-cuda {torch.cuda.get_device_name()}"] = times
    else:
        out["torch-cuda"] = "not available: torch has no CUDA here"
    return out


def webgpu_times(m: Path) -> dict:
    with page_server(m) as url, browser(webgpu=True) as b:
        page = b.new_page()
        page.goto(f"{url}/model/model.json")
        return page.evaluate(PAGE_TIMES, [f"{url}/model-float16/model.json", list(BATCHES)])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", default="/tmp/sketchpad-gpu")
    ap.add_argument("--skip-full-size", action="store_true")
    args = ap.parse_args()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    out = {"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "load": os.getloadavg()}
    out["webgpu_shipped"] = webgpu_certify(DEFAULT_MODEL_DIR)
    print(json.dumps(out["webgpu_shipped"], indent=1), flush=True)
    if not args.skip_full_size:
        m = build_and_export(work)
        out["full_size_cuda_seconds_per_batch"] = cuda_times(m)
        out["full_size_webgpu"] = webgpu_times(m)
        shutil.rmtree(work, ignore_errors=True)
    (RESULTS / "gpu.json").write_text(json.dumps(out, indent=1) + "\n")
    md = ["# GPU figures (benchmarks/bench_gpu.py)", "", "```json", json.dumps(out, indent=1), "```", ""]
    (RESULTS / "gpu.md").write_text("\n".join(md))
    print(f"wrote {RESULTS / 'gpu.json'} and gpu.md")


if __name__ == "__main__":
    main()
