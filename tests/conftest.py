import itertools
import os
import sys

import pytest
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


# --- the certificate registry on both engines (tests/test_registry*.py) ------------------------

_databases = itertools.count()


@pytest.fixture(scope="session")
def pg_cluster():
    """One throw-away PostgreSQL server for the session (tests/pg_cluster.py).  Skipped, with
    the reason, only where Debian's binaries are absent; CI installs them, so there it fails."""
    from pg_cluster import Cluster, missing_reason

    reason = missing_reason()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    with Cluster() as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", "postgresql"])
def registry_db(request, tmp_path):
    """A new, empty registry database on each engine: a SQLite file path, or the URL of a new
    database on the session's PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "certs.sqlite")
    return request.getfixturevalue("pg_cluster").create_database(f"registry_{next(_databases)}")
