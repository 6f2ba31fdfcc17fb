"""Solve problems in the web page (headless Chromium, the model on onnxruntime-web), for
`sketchpad bench SET --backend browser`.

    solver = BrowserSolver(model=None, parallel=True)   # starts the server, the browser, certifies
    solver("12345 * 678")   # -> {"result", "forward_passes", "views_presented", "batches", ...}
    solver.close()

The page's model must first hold a certificate under the page's rule (web/certify/policy.js):
a fresh browser profile has none of its own, so it certifies itself, as every new device
does (web/certify/certified.js); a model that fails is refused (Uncertified) unless
allow_uncertified.  Each problem then runs through web/solve.js with web/onnx_stepper.js's
stepper, the same code the page's Solve button runs.  A bad expression raises InputError and
a step the runtime cannot follow raises StepperFault, as in Python.
"""

from __future__ import annotations

import contextlib

from .certify.browser_backend import page_for
from .certify.certified import Uncertified
from .errors import InputError, StepperFault
from .model.loading import resolve_model_dir
from .server.live import page_server

LOAD_JS = """async ([provider, allowUncertified]) => {
  const { loadModel, loadViewSet } = await import('/onnx_stepper.js');
  window.__benchModel = await loadModel({ provider });
  if (allowUncertified) return { ok: true, source: 'none: allow_uncertified' };
  const { ensureCertified } = await import('/certify/certified.js');
  const status = await ensureCertified(window.__benchModel, (await loadViewSet()).views);
  const r = status.cert?.predicate.result;
  return { ok: status.ok, source: status.source, reasons: status.verdict?.reasons || [],
           views: r?.views, min_margin: r?.min_margin, failures: (r?.failures || []).slice(0, 3) };
}"""

SOLVE_JS = """async ([expr, parallel]) => {
  const { solve } = await import('/solve.js');
  const t = performance.now();
  try {
    const r = await solve(expr, window.__benchModel.stepper, { parallel });
    return { result: r.value, forward_passes: r.forwardPasses, views_presented: r.viewsPresented,
             batches: r.batches, distinct_views: r.distinctViews,
             seconds: (performance.now() - t) / 1000, stepper_seconds: (r.stepperMs ?? 0) / 1000,
             stepper: 'browser:' + window.__benchModel.provider };
  } catch (e) {
    return { error: e.name || 'Error', message: e.message };
  }
}"""


class BrowserSolver:
    def __init__(self, model=None, parallel: bool = True, provider: str = "wasm", allow_uncertified: bool = False):
        d = resolve_model_dir(model)
        self.parallel = parallel
        self._stack = contextlib.ExitStack()
        try:
            url = self._stack.enter_context(page_server(d))
            self.page = self._stack.enter_context(page_for(url, provider))
            self.certificate = self.page.evaluate(LOAD_JS, [provider, allow_uncertified])
        except BaseException:
            self._stack.close()
            raise
        if not self.certificate["ok"]:
            self.close()
            fails = "; ".join(
                f"{f['view']} gives {f['got']}, expected {f['expected']}" for f in self.certificate["failures"]
            )
            reasons = "; ".join(m for _, m in self.certificate["reasons"][:3])
            raise Uncertified(
                f"the model in {d} does not pass certification in this browser ({provider}): "
                f"{reasons}" + (f". Failing views: {fails}" if fails else "") + " (--allow-uncertified runs it anyway)"
            )

    def __call__(self, expr: str) -> dict:
        out = self.page.evaluate(SOLVE_JS, [expr, self.parallel])
        if "error" in out:
            if out["error"] == "InputError":
                raise InputError(out["message"])
            raise StepperFault(f"{out['error']} in the page: {out['message']}")
        return out

    def close(self) -> None:
        self._stack.close()
