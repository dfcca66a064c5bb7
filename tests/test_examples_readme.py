"""``examples/README.md`` as written: every ``dynamo-pulumi preview`` command of its table runs
from the repository root and previews (issue 23, item 6: the README did not say which graph needs
``-p`` or ``--mode operator``, and left the plugin examples out)."""

from __future__ import annotations

import re
import shlex

import pytest
from cli_support import REPO, run_cli

README = REPO / "examples" / "README.md"
COMMAND = re.compile(r"`(dynamo-pulumi preview [^`]+)`")


def commands() -> list[str]:
    return sorted(set(COMMAND.findall(README.read_text())))


def test_the_table_names_every_example_folder() -> None:
    text = README.read_text()
    folders = sorted(p.name for p in (REPO / "examples").iterdir() if p.is_dir())
    assert [f for f in folders if f"`{f}`" not in text] == []


@pytest.mark.parametrize("command", commands())
def test_every_preview_command_runs_as_written(command: str, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    argv = shlex.split(command)[1:]
    for folder, sdk in (("eks-gpu-node-group", "pulumi_eks"), ("gke-gpu-node-pool", "pulumi_gcp")):
        if any(folder in a for a in argv):
            pytest.importorskip(sdk)  # the cloud SDKs of the test extra
    code, _, err = run_cli(capsys, *argv)
    assert code == 0, f"{command}: {err}"
