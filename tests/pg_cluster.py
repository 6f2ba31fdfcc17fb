"""A throw-away PostgreSQL server from Debian's package, for the registry's tests and its load
benchmark (benchmarks/bench_registry.py).

`initdb` makes a cluster in a fresh temporary directory; the server listens on 127.0.0.1 and
an ephemeral port (its Unix socket stays in that directory), runs as an unprivileged user
when we are root (PostgreSQL refuses to run as root, and CI runs as root), and is our own
child process: `stop` and `close` end it by its pid, and `close` removes the directory.  It
can be stopped and started again on the same port and data: the database-restart fault.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

UNPRIVILEGED = "nobody"  # who runs the server when the tests run as root
SUPERUSER = "sketchpad"  # the cluster's superuser (trust authentication, loopback only)


def find_bin() -> Path | None:
    """The newest /usr/lib/postgresql/N/bin with initdb and postgres, or None."""
    found = [Path(d) for d in glob.glob("/usr/lib/postgresql/*/bin")]
    found = [d for d in found if (d / "initdb").is_file() and (d / "postgres").is_file()]
    return max(found, key=lambda d: int(d.parent.name) if d.parent.name.isdigit() else 0, default=None)


def missing_reason() -> str | None:
    """Why no cluster can be started here (None: it can)."""
    if find_bin() is None:
        return (
            "PostgreSQL's server binaries are not installed (Debian's postgresql package: initdb and "
            "postgres under /usr/lib/postgresql/N/bin); `bash scripts/setup.sh` installs them"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[test]')"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, *, fsync: bool = False, max_connections: int = 100):
        reason = missing_reason()
        if reason:
            raise RuntimeError(reason)
        self.bin = find_bin()
        self.fsync = fsync
        self.max_connections = max_connections
        root = os.geteuid() == 0  # then the server runs as UNPRIVILEGED, who must reach its directory:
        self.dir = Path(tempfile.mkdtemp(prefix="sketchpad-pg-", dir="/tmp" if root else None))  # not a 0700 $TMPDIR
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        self.proc: subprocess.Popen | None = None
        atexit.register(self.close)  # also when a test run ends without its fixtures' teardown
        self._as = {}
        if root:
            import pwd

            pw = pwd.getpwnam(UNPRIVILEGED)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self._as = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
        try:
            subprocess.run(
                [self.bin / "initdb", "-D", self.data, "-U", SUPERUSER, "--auth=trust", "-E", "UTF8"]
                + ["--locale=C", "--no-sync", "--no-instructions"],
                cwd=self.dir,
                check=True,
                capture_output=True,
                text=True,
                timeout=300,
                **self._as,
            )
            for _ in range(3):  # another process may take the free port before the server binds it
                self.port = _free_port()
                if self.start(raise_on_failure=False):
                    break
            else:
                raise RuntimeError(f"PostgreSQL did not start: {self.log.read_text()[-2000:]}")
        except BaseException:
            self.close()
            raise

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def start(self, timeout: float = 120, raise_on_failure: bool = True) -> bool:
        """Start the server (our child process) and wait until it accepts connections."""
        import psycopg

        options = {
            "listen_addresses": "127.0.0.1",
            "fsync": "on" if self.fsync else "off",
            "max_connections": str(self.max_connections),
        }
        args = [self.bin / "postgres", "-D", self.data, "-p", str(self.port), "-k", self.dir]
        for k, v in options.items():
            args += ["-c", f"{k}={v}"]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(args, cwd=self.dir, stdout=log, stderr=subprocess.STDOUT, **self._as)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.proc = None
                if raise_on_failure:
                    raise RuntimeError(f"PostgreSQL exited at start: {self.log.read_text()[-2000:]}")
                return False
            try:
                psycopg.connect(self.url(), connect_timeout=5).close()
                return True
            except psycopg.OperationalError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"PostgreSQL did not accept connections within {timeout:g} s")

    def stop(self, timeout: float = 60) -> None:
        """Stop the server: a fast shutdown (SIGINT: clients are disconnected), by its pid."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def execute(self, database: str, sql: str, params=None) -> list:
        """Run one statement as the superuser (the tests' hand on the database); its rows."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as c:
            cur = c.execute(sql, params)
            return cur.fetchall() if cur.description else []

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
