"""SHA-256, the one digest the package computes (object names, the worker hash, the expansion).

``hashlib`` loads OpenSSL's ``_hashlib`` when imported, a fifth of a small ``validate``'s own
import time, for one algorithm CPython also builds in. The builtin module is the one ``hashlib``
itself falls back to (``_sha2`` since 3.12, ``_sha256`` before); the digests are the same bytes
(``tests/test_digests.py``), and an interpreter without either gets ``hashlib``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _constructor() -> Callable[[bytes], Any]:
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # CPython 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef]  # CPython 3.11
        except ImportError:
            from hashlib import sha256  # type: ignore[assignment]
    return sha256  # type: ignore[no-any-return]


_SHA256 = _constructor()


def sha256_hex(data: bytes | str) -> str:
    """The SHA-256 of ``data`` (text as its UTF-8 bytes) as 64 lowercase hex digits."""
    return _SHA256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()  # type: ignore[no-any-return]
