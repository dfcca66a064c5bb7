"""Every Python snippet of README.md runs as written, under Pulumi mocks, from the repository root
(where its relative paths point). A snippet that is not meant to run says so with an HTML comment
``<!-- not runnable: why -->`` on the line before its fence; shell, YAML and output blocks are not
Python and are not run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from dynamo_pulumi.mocks import Recording, run_program

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
_FENCE = re.compile(r"^```(\w*)\s*$")
NOT_RUNNABLE = "<!-- not runnable"


@dataclass(frozen=True)
class Snippet:
    line: int  # 1-based line of the opening fence
    code: str
    runnable: bool


def python_snippets(text: str) -> list[Snippet]:
    """The ```python blocks of ``text``, in order, each with whether it is marked not runnable."""
    lines = text.splitlines()
    found: list[Snippet] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match or not match.group(1):
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        if match.group(1) == "python":
            marked = i > 0 and lines[i - 1].strip().startswith(NOT_RUNNABLE)
            found.append(Snippet(i + 1, "\n".join(lines[i + 1:end]) + "\n", not marked))
        i = end + 1
    return found


SNIPPETS = python_snippets(README.read_text())


def test_the_extractor_finds_python_blocks_and_the_not_runnable_mark() -> None:
    text = "```bash\nls\n```\n```python\nx = 1\n```\n<!-- not runnable: needs a cluster -->\n```python\ny\n```\n"
    assert python_snippets(text) == [Snippet(4, "x = 1\n", True), Snippet(8, "y\n", False)]


def test_the_readme_has_python_snippets() -> None:
    assert len(SNIPPETS) >= 3


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[f"README.md:{s.line}" for s in SNIPPETS])
def test_every_readme_python_snippet_runs_under_mocks(snippet: Snippet, monkeypatch: pytest.MonkeyPatch) -> None:
    if not snippet.runnable:
        pytest.skip(f"README.md:{snippet.line} is marked not runnable")
    monkeypatch.chdir(REPO)
    compiled = compile(snippet.code, f"README.md:{snippet.line}", "exec")
    recording = Recording()
    run_program(lambda: exec(compiled, {"__name__": "__main__"}), recording=recording)
    assert any(r.type.startswith("dynamo:") for r in recording.resources), "the snippet registered no Dynamo resource"
