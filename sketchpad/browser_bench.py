"""Solve problems in the web page (headless Chromium, the model on onnxruntime-web), for
`sketchpad bench SET --backend browser`.

    solver = BrowserSolver(model=None, parallel=True)   # starts the server and the browser
    solver("12345 * 678")   # -> {"result", "forward_passes", "batches", "views_used", "seconds", ...}
    solver.close()

Each problem runs through web/runtime.js with web/model.js's stepper in one loaded page (no
drawing), the same code the page's Solve button runs.  A bad expression raises InputError
and a step the runtime cannot follow raises StepperFault, as in Python.
"""
from __future__ import annotations

import contextlib

from .errors import InputError, StepperFault

SOLVE_JS = """async ([expr, parallel]) => {
  const { solve } = await import('/runtime.js');
  if (!window.__benchModel) {
    const { loadModel } = await import('/model.js');
    window.__benchModel = await loadModel({ provider: window.__benchProvider || 'wasm' });
  }
  const t = performance.now();
  try {
    const r = await solve(expr, window.__benchModel.stepper, { parallel });
    return { result: r.value, forward_passes: r.forwardPasses, batches: r.batches, views_used: r.viewsUsed,
             seconds: (performance.now() - t) / 1000, stepper_seconds: (r.stepperMs ?? 0) / 1000,
             stepper: 'browser:' + window.__benchModel.provider };
  } catch (e) {
    return { error: e.name || 'Error', message: e.message };
  }
}"""


class BrowserSolver:
    def __init__(self, model=None, parallel: bool = True, provider: str = "wasm"):
        from certify.browser_backend import page_for

        from .model import DEFAULT_MODEL_DIR
        self.parallel = parallel
        self._stack = contextlib.ExitStack()
        self.page, self.url = self._stack.enter_context(page_for(model or DEFAULT_MODEL_DIR, provider))
        self.page.evaluate(f"window.__benchProvider = '{provider}'")

    def __call__(self, expr: str) -> dict:
        out = self.page.evaluate(SOLVE_JS, [expr, self.parallel])
        if "error" in out:
            if out["error"] == "InputError":
                raise InputError(out["message"])
            raise StepperFault(f"{out['error']} in the page: {out['message']}")
        return out

    def close(self) -> None:
        self._stack.close()
