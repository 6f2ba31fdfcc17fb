"""Headless Debian chromium driven by Playwright (the Python package; no browser download).

The flags are the ones known to work on our machines (see ../shared/ENVIRONMENT.md): new
headless mode, no sandbox (we run as root in CI), nothing that phones home, a fresh profile (Playwright's own).
WebGPU is off unless asked for: with --enable-unsafe-webgpu and no GPU, Chromium offers only
a SwiftShader fallback adapter, which the page does not pick on its own.
"""

from __future__ import annotations

import contextlib
import os
import time

CHROMIUM = os.environ.get("SKETCHPAD_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--disable-default-apps",
    "--mute-audio",
]


def available() -> str | None:
    """Why the browser cannot run here, or None when it can."""
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is absent (apt-get install -y chromium)"
    try:
        # lazy: playwright is the [test] extra (the browser backend only)
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed"
    return None


def launch_options(webgpu: bool = False) -> dict:
    """Keyword arguments for Playwright's chromium.launch (also for a second browser from an
    existing Playwright instance: `browser.browser_type.launch(**launch_options(True))`)."""
    args = list(FLAGS)
    if webgpu:
        args += ["--enable-unsafe-webgpu", "--enable-features=Vulkan"]
    return {
        "executable_path": CHROMIUM,
        "args": args,
        "headless": True,
        "ignore_default_args": ["--headless", "--disable-gpu"],
    }


@contextlib.contextmanager
def browser(webgpu: bool = False):
    """Yield a Playwright Browser on Debian's chromium."""
    from playwright.sync_api import sync_playwright  # lazy: playwright is the [test] extra (the browser backend only)

    why = available()
    if why:
        raise RuntimeError(why)
    with sync_playwright() as pw:  # Playwright gives each launch a fresh temporary profile
        b = pw.chromium.launch(**launch_options(webgpu))
        try:
            yield b
        finally:
            b.close()


def wait_until(page, expression: str, timeout: float = 120_000, interval: float = 0.05):
    """Wait until `expression` is truthy in the page; its value.  Playwright's wait_for_function
    compiles its predicate with eval inside the page, which the page's Content-Security-Policy
    forbids (no 'unsafe-eval', by design); page.evaluate goes through the DevTools protocol."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"the page did not reach {expression!r} within {timeout / 1000:.0f} s")
        time.sleep(interval)
