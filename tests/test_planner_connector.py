"""Which connector a planner scales through, read from its main container's command line the way
the planner reads it (``--config`` JSON ``environment``, default ``kubernetes``)."""

from __future__ import annotations

import pytest

from dynamo_pulumi.model.planner_connector import planner_connector


def _template(command=None, args=None):
    container = {"name": "main", "image": "dynamo-planner:1.3.1"}
    if command is not None:
        container["command"] = command
    if args is not None:
        container["args"] = args
    return {"spec": {"containers": [container]}}


@pytest.mark.parametrize(("args", "environment"), [
    (["--config", '{"environment": "kubernetes", "backend": "vllm"}'], "kubernetes"),
    (["--config", '{"environment": "virtual"}'], "virtual"),
    (["--config", '{"environment": "global-planner", "global_planner_namespace": "gp"}'], "global-planner"),
    (['--config={"environment": "virtual"}'], "virtual"),
    (["--config", '{"backend": "vllm"}'], "kubernetes"),
    (["--config", "/workspace/planner_config/planner_config.json"], "kubernetes"),
    (["--environment=virtual"], "virtual"),
    (["--environment", "kubernetes"], "kubernetes"),
    ([], "kubernetes"),
])
def test_environment_comes_from_config_or_flag_with_the_planners_default(args, environment):
    connector = planner_connector(_template(["python3", "-m", "dynamo.planner"], args))
    assert connector.environment == environment


def test_kubernetes_and_global_planner_environments_use_the_kubernetes_api():
    def uses(env: str) -> bool:
        return planner_connector(_template(args=["--config", f'{{"environment": "{env}"}}'])).uses_kubernetes_api

    assert uses("kubernetes") and uses("global-planner") and not uses("virtual")


def test_a_shell_command_line_is_split_like_the_shell():
    line = "python3 -m dynamo.planner --config '{\"environment\": \"virtual\"}'"
    assert planner_connector(_template(["/bin/sh", "-c"], [line])).environment == "virtual"


def test_the_last_config_flag_wins_as_in_argparse():
    args = ["--config", '{"environment": "virtual"}', "--config", '{"environment": "kubernetes"}']
    assert planner_connector(_template(args=args)).environment == "kubernetes"


def test_a_global_planner_patches_dgds_unless_no_operation():
    patches = planner_connector(_template(["python3", "-m", "dynamo.global_planner"], ["--max-total-gpus", "8"]))
    dry = planner_connector(_template(["python3", "-m", "dynamo.global_planner"], ["--no-operation"]))
    assert patches.global_planner and patches.uses_kubernetes_api
    assert not dry.uses_kubernetes_api
