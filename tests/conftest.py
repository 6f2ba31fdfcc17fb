import os
import sys

from hypothesis import settings

settings.register_profile("default", deadline=None, max_examples=60, derandomize=True)
settings.register_profile("slow", deadline=None, max_examples=600)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# A fresh machine's certificate cache for every test session: the first model use certifies
# itself here, exactly as on a new device, and nothing leaks into ~/.cache.
if "SKETCHPAD_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["SKETCHPAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="sketchpad-test-cache-")
