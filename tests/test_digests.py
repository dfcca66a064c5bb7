"""``floor/digests.py``: the builtin SHA-256 gives the bytes ``hashlib`` gives."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from dynamo_pulumi.floor import digests, naming


@given(st.binary(max_size=4096))
def test_the_builtin_digest_is_hashlibs(data: bytes) -> None:
    assert digests.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_known_answers() -> None:
    """FIPS 180-2 test vectors, and the one our names hash (text as UTF-8)."""
    assert digests.sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert digests.sha256_hex(b"abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert naming.sha256_hex("é") == hashlib.sha256("é".encode()).hexdigest()


def test_the_builtin_module_is_used_when_the_interpreter_has_one() -> None:
    """The point of the module: no OpenSSL load for one digest (CPython ships the builtin)."""
    assert digests._SHA256.__module__ in ("_sha2", "_sha256")
