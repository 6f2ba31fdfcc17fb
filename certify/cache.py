"""Certificates a device made for itself, kept in the user's cache directory (platformdirs'
user cache dir, or $SKETCHPAD_CACHE_DIR), one file per model digest, environment and gate.

An entry counts only if this user's own sketchpad wrote it: each carries an HMAC-SHA256 tag
made with a per-user key (`.hmac-key` in the cache directory: 32 random bytes, created at first
use, mode 0600, and refused unless this user owns it and nobody else can read it).  A file that
anyone else could have written - an entry without a valid tag, or any entry in a directory that
another user owns or may write to - is ignored with a one-line warning, and the device runs
the suite instead.  An entry that passes is still checked against the rule like any other
certificate, so a stale one (another model, environment or gate) is not used either.

The same key seeds the order in which this device's suite presents V (`suite_seed`): the
publisher of a model cannot know it in advance.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import sys
import tempfile
from pathlib import Path

import platformdirs

from .. import strictjson
from .policy import Expectation

FORMAT = "sketchpad-cache/1"
KEY_FILE = ".hmac-key"
KEY_BYTES = 32


def warn(line: str) -> None:
    print(f"sketchpad: warning: {line}", file=sys.stderr, flush=True)


def cache_dir() -> Path:
    env = os.environ.get("SKETCHPAD_CACHE_DIR")
    if env:
        return Path(env)

    return Path(platformdirs.user_cache_dir("sketchpad")) / "certificates"


def key(expect: Expectation) -> str:
    """Model digest (every loaded file and the code), backend, gate, environment and graph verdict."""
    text = strictjson.dumps(
        {
            "backend": expect.backend,
            "files": expect.files,
            "gate": expect.gate,
            "environment": expect.environment,
            "rows": expect.rows,
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def path_for(expect: Expectation) -> Path:
    return cache_dir() / f"{expect.backend}-gate{expect.gate:g}-{key(expect)}.json"


def _owner_only(st: os.stat_result, mask: int) -> str | None:
    """Why a file or directory is not this user's alone (None: it is)."""
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        return f"it belongs to user id {st.st_uid}, not to this user ({os.geteuid()})"
    if st.st_mode & mask:
        return f"others may {'write to' if mask == 0o022 else 'read or write'} it (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def unsafe_dir(d: Path) -> str | None:
    """Why entries in `d` cannot be trusted to be this user's (None: they can)."""
    try:
        st = os.stat(d, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"it cannot be read ({e.strerror})"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a directory"
    return _owner_only(st, 0o022)


def _ensure_dir(d: Path) -> str | None:
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as e:
        return f"it cannot be made ({e.strerror})"
    return unsafe_dir(d)


def _read_key(path: Path) -> bytes | str:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        return f"it cannot be opened ({e.strerror})"
    try:
        st = os.fstat(fd)
        problem = "it is not a plain file" if not stat.S_ISREG(st.st_mode) else _owner_only(st, 0o077)
        if problem:
            return problem
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    return data if len(data) == KEY_BYTES else f"it holds {len(data)} bytes, not {KEY_BYTES}"


def user_key(create: bool = True, warn=warn) -> bytes | None:
    """This user's key (made now if there is none and `create`), or None with a warning."""
    d = cache_dir()
    problem = _ensure_dir(d) if create else unsafe_dir(d)
    if problem:
        warn(f"not using the certificate cache in {d}: {problem}")
        return None
    path = d / KEY_FILE
    if create and not path.exists():
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(KEY_BYTES))
        except FileExistsError:
            pass  # another process made it first: read theirs
        except OSError as e:
            warn(f"not using the certificate cache in {d}: its key {path} cannot be made ({e.strerror})")
            return None
    elif not path.exists():
        return None
    got = _read_key(path)
    if isinstance(got, str):
        warn(f"not using the certificate cache in {d}: its key {path} is unsafe: {got}")
        return None
    return got


def tag(secret: bytes, name: str, cert: dict) -> str:
    """The HMAC of an entry: its file name (so it cannot move to another slot) and its certificate."""
    text = f"{FORMAT}\n{name}\n" + strictjson.dumps(cert, sort_keys=True, separators=(",", ":"))
    return hmac.new(secret, text.encode(), hashlib.sha256).hexdigest()


def load(expect: Expectation, warn=warn):
    """The cached certificate for this model and environment, or None."""
    path = path_for(expect)
    if not path.exists():
        return None
    secret = user_key(create=False, warn=warn)
    if secret is None:
        warn(f"ignoring the certificate cache entry {path}: there is no key of this user to check it with")
        return None
    try:
        entry = strictjson.loads(path.read_text())
    except (OSError, ValueError):
        warn(f"ignoring the certificate cache entry {path}: it is not readable JSON")
        return None
    cert = entry.get("certificate") if isinstance(entry, dict) else None
    got = entry.get("hmac") if isinstance(entry, dict) else None
    if entry.get("format") != FORMAT or not isinstance(cert, dict) or not isinstance(got, str):
        warn(f"ignoring the certificate cache entry {path}: it carries no HMAC tag of this user's key")
        return None
    if not hmac.compare_digest(got, tag(secret, path.name, cert)):
        warn(f"ignoring the certificate cache entry {path}: its HMAC tag does not match this user's key")
        return None
    return cert


def store(expect: Expectation, cert: dict, warn=warn) -> Path | None:
    """Write atomically (a reader never sees half a file), tagged with this user's key."""
    secret = user_key(create=True, warn=warn)
    if secret is None:
        return None
    path = path_for(expect)
    entry = {"format": FORMAT, "hmac": tag(secret, path.name, cert), "certificate": cert}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(strictjson.dumps(entry, indent=1) + "\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def suite_seed(warn=warn) -> int:
    """The seed of this device's suite order: from this user's key (stable here, unknown to any
    model publisher), or fresh random bits where there is no usable key."""
    secret = user_key(create=True, warn=warn)
    if secret is None:
        return secrets.randbits(32)
    return int.from_bytes(hmac.new(secret, b"sketchpad suite order", hashlib.sha256).digest()[:4], "big")
