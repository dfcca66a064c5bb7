"""The package faces that load their names on first use (``floor/lazy.py``): ``dynamo_pulumi.api``
and ``dynamo_pulumi.program``."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dynamo_pulumi.api as api
import dynamo_pulumi.program as program


@pytest.mark.parametrize("face", [api, program], ids=["api", "program"])
def test_every_public_name_resolves_to_the_submodules_object(face) -> None:
    for name in face.__all__:
        module, attribute = face._PUBLIC[name]
        assert getattr(face, name) is getattr(sys.modules[f"{face.__name__}.{module}"], attribute)


@pytest.mark.parametrize("face", [api, program], ids=["api", "program"])
def test_an_unknown_name_is_an_attribute_error_naming_the_face(face) -> None:
    with pytest.raises(AttributeError, match=rf"module '{face.__name__}' has no attribute 'Nope'"):
        face.Nope  # noqa: B018
    assert not hasattr(face, "deploy_graph")


def test_a_submodule_of_the_program_face_loads_without_the_program() -> None:
    """``program/cloud_mocks`` must not pull the Pulumi program (and the SDK) in with the face."""
    code = (
        "import sys\n"
        "import dynamo_pulumi.program.git_revision\n"
        "print('dynamo_pulumi.program.graph_program' in sys.modules, 'pulumi' in sys.modules)\n"
        "from dynamo_pulumi.program import deploy\n"
        "print('dynamo_pulumi.program.graph_program' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False", "True"]


def test_a_name_read_once_is_then_a_plain_attribute() -> None:
    program.plan  # noqa: B018
    assert "plan" in vars(program)
