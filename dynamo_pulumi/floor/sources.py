"""Where input text comes from: a file, standard input (via the CLI), YAML text, or data.

Reading is separate from loading objects (:mod:`dynamo_pulumi.loading.documents`) because it is where the
outside world's failures surface: a missing file, a directory or a device where a file was
expected, unreadable or non-UTF-8 bytes. Each is one :class:`InputError` saying what the path is.
The CLI reads its inputs itself (:class:`SourceText`), so only text the user marked as text is
parsed as YAML; the library still accepts a path or YAML text in one string.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, Union

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.floor.records import record
from dynamo_pulumi.floor.yaml_source import DocumentPositions, parse_documents


@record
class SourceText:
    """YAML text and the name it is reported under (a file, ``<stdin>``): what the CLI reads
    itself, so that only text the user marked as text is parsed as YAML."""

    text: str
    name: str = ""
    #: In a text holding several graphs, the (0-based) document of the one meant; None: the only one.
    document: int | None = None


if TYPE_CHECKING:
    from pathlib import Path

#: What a graph can be read from (``Path`` by name: pathlib is imported only for a path string).
Source = Union[str, bytes, "Path", SourceText, Mapping[str, Any], Sequence[Mapping[str, Any]]]


def is_path(value: Any) -> bool:
    """``value`` is a ``pathlib.Path`` (known without importing pathlib, which the CLI never needs:
    when it is not loaded, no Path exists)."""
    pathlib = sys.modules.get("pathlib")
    return pathlib is not None and isinstance(value, pathlib.Path)


def _describe(source: Source) -> str:
    if is_path(source):
        return str(source)
    if isinstance(source, str) and _looks_like_path(source):
        return source
    return ""


def _looks_like_path(text: str) -> bool:
    """A one-line string naming a file (rather than YAML text): a YAML/JSON file name, or any
    path that exists (a directory or a device too, so reading it says what it is instead of
    "no such file")."""
    if "\n" in text or not text.strip():
        return False
    from pathlib import Path  # late: only a path given as a string gets here

    if Path(text).suffix.lower() in (".yaml", ".yml", ".json"):
        return True
    try:
        return Path(text).exists()
    except OSError:
        return False


def _not_a_file(mode: int) -> str | None:
    """What a path that is not a regular file (or a pipe) is, for the error message."""
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    if stat.S_ISCHR(mode):
        return "is a character device, not a file"
    if stat.S_ISBLK(mode):
        return "is a block device, not a file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a file"
    return None


def read_text_file(path: str | Path) -> str:
    """The UTF-8 text of a regular file or a pipe (``<(...)``), or a one-line InputError saying
    what the path is instead: missing, a directory, a device, unreadable, not UTF-8."""
    name = str(path)
    try:
        problem = _not_a_file(os.stat(name).st_mode)
    except FileNotFoundError:
        raise InputError("no such file", name) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", name) from None
    if problem:
        raise InputError(problem, name)
    try:
        with open(name, "rb") as handle:
            data = read_bounded(handle, name)
    except PermissionError:
        raise InputError("cannot read: permission denied", name) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", name) from None
    return _decode(data, name)


#: The largest input read: far above any real graph file (the largest corpus graph is ~20 KB; a
#: 10 MB generated graph still fits), far below what exhausts memory. The API server itself
#: refuses request bodies over 3 MiB.
MAX_INPUT_BYTES = 16 * 1024 * 1024


def too_large(name: str) -> InputError:
    return InputError(
        f"is larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB ({MAX_INPUT_BYTES} bytes), far above any graph "
        "file; not read (is it the right input? an endless stream such as /dev/zero never ends)",
        name,
    )


def read_bounded(handle: BinaryIO, name: str) -> bytes:
    """At most :data:`MAX_INPUT_BYTES` of ``handle`` (a file, a pipe, standard input): a larger
    or endless input is refused after reading one byte more, never held whole in memory."""
    data = handle.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise too_large(name)
    return data


def check_text_size(text: str | bytes, name: str) -> None:
    """YAML given as text (``--inline``, the components' ``spec=``) is held to the same bound."""
    if len(text) > MAX_INPUT_BYTES:
        raise too_large(name or "input")


def parse_yaml(text: str, source: str = "") -> list[Any]:
    """Every non-empty document of a (multi-document) YAML text."""
    return [doc.value for doc in parse_documents(text, source)]


#: A raw document and, when it came from YAML text, the positions of its fields.
RawDocument = tuple[Any, DocumentPositions | None]


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", name) if name else InputError("input is not UTF-8 text") from None


def read_raw_documents(source: Source) -> tuple[list[RawDocument], str]:
    """The raw documents of ``source`` with their field positions, and a description of it."""
    where = _describe(source)
    if isinstance(source, SourceText):
        return _with_positions(source.text, source.name), source.name
    if is_path(source) or (isinstance(source, str) and _looks_like_path(source)):
        return _with_positions(read_text_file(str(source)), where), where
    if isinstance(source, str):
        docs = _with_positions(source, "")
        if "\n" not in source.strip() and len(docs) == 1 and isinstance(docs[0][0], str):
            # One word of text: most likely a file name that does not exist.
            raise InputError("no such file (and not YAML describing an object)", source.strip())
        return docs, where
    if isinstance(source, (bytes, bytearray)):
        return _with_positions(_decode(bytes(source), ""), ""), where
    if isinstance(source, Mapping):
        return [(source, None)], where
    if isinstance(source, Sequence):
        return [(doc, None) for doc in source], where
    raise InputError(f"cannot load from a {type(source).__name__}; give a dict, YAML text or a path")


def _with_positions(text: str, name: str) -> list[RawDocument]:
    check_text_size(text, name)
    return [(doc.value, doc.positions) for doc in parse_documents(text, name)]


def read_documents(source: Source) -> tuple[list[Any], str]:
    """The raw documents of ``source`` and a description of it for messages."""
    docs, where = read_raw_documents(source)
    return [doc for doc, _ in docs], where
