"""The base LM's training text: docstrings of Python's own standard library.

It ships with every Python, so the base model is reproducible with no download, and it is
ordinary English and code - nothing of the step table - so gate 0 gives back a real language
model.  Characters outside the tokenizer's printable set are dropped; the SHA-256 of the text
goes into meta.json because docstrings change between Python versions.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect

from .tokenizer import TEXT_CHARS

MODULES = (
    "abc",
    "argparse",
    "base64",
    "bisect",
    "calendar",
    "collections",
    "contextlib",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "enum",
    "fractions",
    "functools",
    "heapq",
    "inspect",
    "ipaddress",
    "itertools",
    "json",
    "logging",
    "math",
    "operator",
    "pathlib",
    "pprint",
    "queue",
    "random",
    "re",
    "shlex",
    "shutil",
    "statistics",
    "string",
    "textwrap",
    "threading",
    "typing",
    "unittest",
    "urllib.parse",
    "uuid",
    "zipfile",
)


def docstrings() -> list[str]:
    out = []
    for name in MODULES:
        mod = importlib.import_module(name)
        seen = set()
        for obj in [mod] + [getattr(mod, a) for a in sorted(dir(mod)) if not a.startswith("_")]:
            doc = (
                inspect.getdoc(obj)
                if (inspect.ismodule(obj) or inspect.isclass(obj) or inspect.isroutine(obj))
                else None
            )
            if doc and doc not in seen:
                seen.add(doc)
                out.append(doc)
    return out


def text() -> str:
    allowed = set(TEXT_CHARS)
    return "\n\n".join("".join(c for c in d if c in allowed) for d in docstrings())


def sha256(t: str) -> str:
    return hashlib.sha256(t.encode()).hexdigest()
