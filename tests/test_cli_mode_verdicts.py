"""``validate --old``, ``diff`` and ``preview`` give one answer per mode on the same pair of files,
for every update rule: operator mode refuses (validate) and replaces the DGD naming the rule
(diff); render mode reports the rule as a planned replacement in both commands."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from update_rule_cases import IMMUTABLE_CASES, MUTABLE_CASES, ONCE_SET_CASES, PLATFORM, RuleCase

from dynamo_pulumi.cli import main

PLANNED = "planned replacement (render mode; the operator's webhook would refuse this in place)"


def _files(tmp_path: Path, case: RuleCase) -> tuple[str, str, str]:
    old, new, platform = tmp_path / "old.yaml", tmp_path / "new.yaml", tmp_path / "platform.yaml"
    old.write_text(yaml.safe_dump(case.old))
    new.write_text(yaml.safe_dump(case.new))
    platform.write_text(yaml.safe_dump(PLATFORM))
    return str(old), str(new), str(platform)


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _rule_lines(text: str, rule: str) -> list[str]:
    return [line for line in text.splitlines() if rule in line]


@pytest.mark.parametrize("case", IMMUTABLE_CASES, ids=lambda c: c.id)
def test_operator_mode_validate_refuses_and_diff_replaces_the_dgd_naming_the_rule(tmp_path, capsys, case):
    old, new, platform = _files(tmp_path, case)
    code, _, err = _cli(capsys, "validate", new, "--old", old, "-p", platform, "--mode", "operator")
    assert code == 1 and _rule_lines(err, case.rule)
    code, out, _ = _cli(capsys, "diff", old, new, "--platform", platform, "--mode", "operator")
    assert code == 0
    head = out.splitlines()[0]
    assert head.startswith("+- replace") and "kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment ns/g" in head
    assert any("reason: the operator's update webhook refuses this in place" in line
               for line in _rule_lines(out, case.rule))


@pytest.mark.parametrize("case", IMMUTABLE_CASES, ids=lambda c: c.id)
def test_render_mode_validate_and_diff_report_the_rule_as_a_planned_replacement(tmp_path, capsys, case):
    old, new, platform = _files(tmp_path, case)
    code, out, err = _cli(capsys, "validate", new, "--old", old, "-p", platform)
    assert code == 0, err
    validate_rules = [line.split(f"{PLANNED}: ", 1)[1] for line in out.splitlines() if PLANNED in line]
    assert any(case.rule in rule for rule in validate_rules)
    code, out, _ = _cli(capsys, "diff", old, new, "--platform", platform)
    assert code == 0
    diff_rules = [line.split(f"{PLANNED}: ", 1)[1] for line in out.splitlines() if PLANNED in line]
    assert diff_rules == validate_rules  # the same verdict, rule by rule
    assert "nvidia.com/v1beta1:DynamoGraphDeployment" not in out


@pytest.mark.parametrize("case", MUTABLE_CASES, ids=lambda c: c.id)
def test_changes_the_webhook_accepts_update_the_dgd_in_place_in_both_commands(tmp_path, capsys, case):
    old, new, platform = _files(tmp_path, case)
    # Pulumi never sends adapter-owned replicas: validate asks Pulumi's question with --client pulumi.
    client = ["--client", "pulumi"] if case.id == "adapter-owned-replicas" else []
    code, out, _ = _cli(capsys, "validate", new, "--old", old, "-p", platform, "--mode", "operator", *client)
    assert code == 0 and "is valid (update;" in out
    code, out, _ = _cli(capsys, "diff", old, new, "--platform", platform, "--mode", "operator", "--all")
    head = out.splitlines()[0]
    expected = "same" if case.id == "adapter-owned-replicas" else "update"
    assert head.split()[1 if head.startswith(("~", "+", "-")) else 0] == expected
    assert "reason:" not in out


def test_validate_judges_adapter_owned_replicas_as_kubectl_sends_them(tmp_path, capsys):
    """The file applied as written (kubectl, Argo) sends the replicas a scalingAdapter owns: the
    webhook refuses the direct change, so ``validate --old`` (default ``--client kubectl``) does."""
    case = next(c for c in MUTABLE_CASES if c.id == "adapter-owned-replicas")
    old, new, platform = _files(tmp_path, case)
    code, _, err = _cli(capsys, "validate", new, "--old", old, "-p", platform, "--mode", "operator")
    assert code == 1
    assert "replicas: Forbidden: cannot be modified directly when scaling adapter is enabled" in err
    code, _, err = _cli(capsys, "validate", new, "--old", old, "-p", platform, "--mode", "operator",
                        "--client", "kubectl")
    assert code == 1


def test_operator_mode_diff_lists_the_operator_objects_a_change_touches(tmp_path, capsys):
    case = next(c for c in MUTABLE_CASES if c.id == "image")
    old, new, platform = _files(tmp_path, case)
    _, out, _ = _cli(capsys, "diff", old, new, "--platform", platform, "--mode", "operator")
    touched = out.split("Predicted expansion", 1)[1]
    assert "~  update   PodCliqueSet g" in touched
    assert "~  update   Service g-decode" in touched  # its worker-hash label follows the new image
    assert "g-frontend" not in touched


def test_preview_in_operator_mode_prints_the_custom_resource_and_the_predicted_expansion(tmp_path, capsys):
    case = IMMUTABLE_CASES[0]
    _, new, platform = _files(tmp_path, case)
    code, out, _ = _cli(capsys, "preview", new, "--platform", platform, "--mode", "operator")
    assert code == 0
    assert "kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment" in out
    assert "predicted expansion (created by the operator, not by Pulumi):" in out
    assert "PodCliqueSet g (grove.io/v1alpha1) digest " in out


@pytest.mark.parametrize("case", ONCE_SET_CASES, ids=lambda c: c.id)
def test_a_value_set_where_none_was_is_a_replacement_in_diff_and_a_warning_in_validate(tmp_path, capsys, case):
    """The webhook accepts it, the trigger still changes: Pulumi replaces the DGD, and both
    commands say so naming the trigger's rule (validate as a warning, not an error)."""
    old, new, platform = _files(tmp_path, case)
    code, out, err = _cli(capsys, "validate", new, "--old", old, "-p", platform, "--mode", "operator")
    assert code == 0 and "is valid (update;" in out
    assert any("Pulumi replaces the custom resource" in line for line in _rule_lines(err, case.rule))
    code, out, _ = _cli(capsys, "diff", old, new, "--platform", platform, "--mode", "operator")
    assert code == 0
    assert out.splitlines()[0].startswith("+- replace")
    assert any("reason: the replacement trigger changes" in line for line in _rule_lines(out, case.rule))


def test_an_adapter_owned_replica_change_touches_neither_the_dgd_nor_the_operators_objects(tmp_path, capsys):
    """Never sent (ignore_changes), so the operator has nothing to do for it either."""
    case = next(c for c in MUTABLE_CASES if c.id == "adapter-owned-replicas")
    old, new, platform = _files(tmp_path, case)
    code, out, _ = _cli(capsys, "diff", old, new, "--platform", platform, "--mode", "operator")
    assert code == 0 and "Custom resource: same; operator objects: 0 to change" in out
