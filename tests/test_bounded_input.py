"""Hostile input is bounded: alias bombs, endless streams, huge echoed values, overflowing
quantities each end in exit 1 with one clear line, fast, never a hang, a traceback or 2 MB of
stderr."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
import yaml
from cli_support import BETA, REPO, run_cli, write

from dynamo_pulumi.errors import InputError, invalid, shorten
from dynamo_pulumi.floor.sources import MAX_INPUT_BYTES, read_bounded
from dynamo_pulumi.floor.yaml_source import allowed_alias_ratio, excessive_aliasing, parse_documents

LAUGHS = "\n".join(
    [
        'x-bomb:',
        '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *[f"  {n}: &{n} [{','.join(['*' + p] * 9)}]" for p, n in zip("abcdefg", "bcdefgh", strict=True)],
    ]
)


def _bomb_graph() -> str:
    graph = BETA.replace("              image: nvcr", "              args: *h\n              image: nvcr", 1)
    return f"{LAUGHS}\n{graph}"


@pytest.mark.parametrize("command", ["validate", "render", "preview"])
def test_an_alias_bomb_in_args_is_refused_at_parse(tmp_path, capsys, command: str) -> None:
    path = write(tmp_path, "bomb.yaml", _bomb_graph())
    code, _, err = run_cli(capsys, command, path)
    assert code == 1
    assert f"{path}:4:" in err and "invalid YAML: document contains excessive aliasing" in err


def test_an_alias_bomb_is_refused_by_diff(tmp_path, capsys) -> None:
    code, _, err = run_cli(capsys, "diff", write(tmp_path, "a.yaml", BETA), write(tmp_path, "b.yaml", _bomb_graph()))
    assert code == 1 and "excessive aliasing" in err


def test_ordinary_aliases_and_merge_keys_still_load() -> None:
    (doc,) = parse_documents("a: &x {b: 1}\nc: *x\nd: {<<: *x, e: 2}\n", "ok.yaml")
    assert doc.value == {"a": {"b": 1}, "c": {"b": 1}, "d": {"b": 1, "e": 2}}


def test_an_anchor_containing_itself_is_refused() -> None:
    with pytest.raises(InputError, match="anchor value contains itself"):
        parse_documents("a: &a [*a]\n", "r.yaml")


def test_go_yaml_alias_ratio_bounds() -> None:
    assert allowed_alias_ratio(400_000) == 0.99 and allowed_alias_ratio(4_000_000) == pytest.approx(0.10)
    assert allowed_alias_ratio(2_200_000) == pytest.approx(0.545)
    assert not excessive_aliasing(1000, 1000)  # checked only above 1,000 decoded nodes
    assert not excessive_aliasing(990, 1001) and excessive_aliasing(991, 1001)
    assert not excessive_aliasing(400_000, 4_000_001) and excessive_aliasing(400_001, 4_000_001)


def test_input_up_to_the_cap_is_read_and_one_byte_more_is_refused() -> None:
    assert len(read_bounded(io.BytesIO(b"x" * MAX_INPUT_BYTES), "f")) == MAX_INPUT_BYTES
    with pytest.raises(InputError, match="is larger than 16 MiB"):
        read_bounded(io.BytesIO(b"x" * (MAX_INPUT_BYTES + 1)), "f")


def test_yaml_text_over_the_cap_is_refused() -> None:
    from dynamo_pulumi.loading.documents import load_documents

    with pytest.raises(InputError, match="is larger than 16 MiB"):
        load_documents("a: " + "x" * MAX_INPUT_BYTES + "\n")


def test_validate_reading_dev_zero_from_stdin_stops_at_the_cap() -> None:
    with open("/dev/zero", "rb") as zero:
        result = subprocess.run([sys.executable, "-m", "dynamo_pulumi", "validate", "-"], stdin=zero,
                                capture_output=True, text=True, cwd=REPO, timeout=60, check=False)
    assert result.returncode == 1
    assert result.stderr.startswith("<stdin>: is larger than 16 MiB")


def test_a_huge_name_is_echoed_cut(tmp_path, capsys) -> None:
    doc = yaml.safe_load(BETA)
    doc["metadata"]["name"] = "a" * 1_000_000
    path = write(tmp_path, "big.yaml", yaml.safe_dump(doc))
    for argv in (["validate", path], ["render", path], ["preview", path], ["validate", "-o", "json", path]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 1 and len(out) + len(err) < 5000, argv
        assert "(1000000 characters)" in out + err


def test_shorten_keeps_two_hundred_characters() -> None:
    assert shorten("a" * 200) == "a" * 200
    assert shorten("a" * 201) == "a" * 200 + "... (201 characters)"
    assert str(invalid("p", "b" * 300, "bad")) == f'p: Invalid value: "{"b" * 199}... (302 characters): bad'
