"""Input errors as ``pulumi.RunError``, so ``pulumi up`` prints the field errors and no traceback.

The Pulumi language host prints any other exception with its Python stack trace; a ``RunError``
is printed as its message alone. The error raised is a subclass of *both* the package's own
error class (``GraphValidationError``, ``InputError``, ``DuplicateObjectError``, ...) and
``pulumi.RunError``, carrying the same fields, so code that catches ours keeps working and the
CLI keeps its own formatting. This lives under ``resources/`` because it imports ``pulumi``;
:mod:`dynamo_pulumi.errors` stays importable without it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pulumi

from dynamo_pulumi.errors import DynamoPulumiError, also_a


def as_run_error(exc: DynamoPulumiError) -> DynamoPulumiError:
    """The same error (same class, message and fields) as a ``pulumi.RunError``."""
    return also_a(exc, pulumi.RunError)


@contextmanager
def reported_to_pulumi() -> Iterator[None]:
    """Our input errors raised inside the block leave it as ``pulumi.RunError``s."""
    try:
        yield
    except DynamoPulumiError as exc:
        raise as_run_error(exc) from None
