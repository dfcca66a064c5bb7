"""The legacy ``DYN_DEPLOYMENT_CONFIG`` env is a ``generateSingleDCD`` rewrite (component pathway
only): the Grove pathway renders cliques from the components as written."""

from __future__ import annotations

import json
from typing import Any

from grove_fixtures import GROVE_PLATFORM, by_name, component, env_map, graph, main_container

from dynamo_pulumi.platform import Platform
from dynamo_pulumi.render import render_graph
from dynamo_pulumi.render.graph import generate_component_deployments

CONFIG = json.dumps({"Frontend": {"port": 9999}, "worker": {"ServiceArgs": {"Resources": {"gpu": "4"}}}})


def _components() -> list[dict[str, Any]]:
    env = [{"name": "DYN_DEPLOYMENT_CONFIG", "value": CONFIG}]
    frontend = main_container(image="registry.example/frontend:1.4.0")
    frontend["env"] = env
    worker = main_container(gpus=1, command=["python3", "-m", "dynamo.vllm"])
    worker["env"] = [dict(e) for e in env]
    return [component("Frontend", "frontend", container=frontend), component("worker", container=worker)]


def _main(pod_spec: dict[str, Any]) -> dict[str, Any]:
    return pod_spec["containers"][0]


def test_grove_cliques_keep_the_deployment_config_env_and_resources_as_written() -> None:
    result = render_graph(graph(_components()), GROVE_PLATFORM)
    pcs = next(o for o in result.objects if o["kind"] == "PodCliqueSet")
    cliques = by_name(pcs["spec"]["template"]["cliques"])
    frontend, worker = _main(cliques["frontend"]["spec"]["podSpec"]), _main(cliques["worker"]["spec"]["podSpec"])
    assert env_map(frontend)["DYN_DEPLOYMENT_CONFIG"] == CONFIG
    assert worker["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert "requests" not in worker["resources"]


def test_component_pathway_still_applies_the_deployment_config() -> None:
    dgd = graph(_components(), platform=Platform())
    result = render_graph(dgd, Platform())
    assert result.pathway == "component"
    frontend, worker = result.components
    frontend_env = env_map(frontend["spec"]["podTemplate"]["spec"]["containers"][0])
    assert json.loads(frontend_env["DYN_DEPLOYMENT_CONFIG"])["Frontend"]["port"] == 8000
    resources = worker["spec"]["podTemplate"]["spec"]["containers"][0]["resources"]
    assert resources["limits"]["nvidia.com/gpu"] == resources["requests"]["nvidia.com/gpu"] == "4"


def test_generation_can_skip_the_deployment_config() -> None:
    dgd = graph(_components())
    skipped = generate_component_deployments(dgd, "n", "h", apply_deployment_config=False)
    main = skipped[1]["spec"]["podTemplate"]["spec"]["containers"][0]
    assert main["resources"] == {"limits": {"nvidia.com/gpu": "1"}}
    assert env_map(skipped[0]["spec"]["podTemplate"]["spec"]["containers"][0])["DYN_DEPLOYMENT_CONFIG"] == CONFIG
