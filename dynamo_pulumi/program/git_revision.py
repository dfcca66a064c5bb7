"""A file or program as it was at a git revision, for ``diff --old-ref REF``.

A pull request's review needs OLD = the program on the base branch and NEW = the working tree.
The whole repository at REF is exported (``git archive``) into a temporary directory, since a
program may read files beside it (a graph YAML, a platform file, a sibling example); nothing in
the user's repository or work tree changes. Only the ``git`` executable is needed.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

from dynamo_pulumi.errors import InputError


def _git(cwd: Path, *args: str) -> bytes:
    if shutil.which("git") is None:
        raise InputError("--old-ref needs the git executable, which is not on PATH")
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"git {args[0]}: {message[-1] if message else 'failed'}")
    return result.stdout


def _repository_of(path: Path) -> Path:
    start = path if path.is_dir() else path.parent
    if not start.exists():
        raise InputError("no such file or directory", str(path))
    try:
        return Path(_git(start, "rev-parse", "--show-toplevel").decode().strip()).resolve()
    except InputError:
        raise InputError("--old-ref needs a path inside a git repository", str(path)) from None


@contextlib.contextmanager
def at_revision(path: str, ref: str) -> Iterator[Path]:
    """``path`` as it was at ``ref``: the same relative path inside an export of the repository."""
    given = Path(path).resolve()
    root = _repository_of(given)
    relative = given.relative_to(root)
    try:
        commit = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    except InputError:
        raise InputError(f"--old-ref {ref!r}: no such commit, branch or tag in {root}") from None
    archive = _git(root, "archive", "--format=tar", commit)
    with tempfile.TemporaryDirectory(prefix="dynamo-pulumi-ref-") as temporary:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(temporary, filter="data")
        old = Path(temporary) / relative
        if not old.exists():
            raise InputError(f"did not exist at {ref}", path)
        yield old
