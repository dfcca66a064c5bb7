"""The root program and the examples run under Pulumi mocks and register what they say."""

from __future__ import annotations

import importlib.util
import py_compile
import runpy
import warnings
from pathlib import Path

import pytest

from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DCD_TYPE, DGD_TYPE

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


def _run_main(path: Path, config: dict[str, str] | None = None):
    return run_program(lambda: runpy.run_path(str(path), run_name="__main__"), config=config)[0]


def test_root_program_deploys_the_embedded_example_by_default():
    rec = _run_main(REPO / "__main__.py")
    (dgd,) = rec.by_type(DGD_TYPE)
    assert dgd.name == "vllm-agg"
    assert {r.name for r in rec.by_type(DCD_TYPE)} == {"default/vllm-agg-frontend", "default/vllm-agg-vllmworker"}


def test_root_program_reads_graph_namespace_and_platform_from_stack_config(tmp_path):
    platform = tmp_path / "platform.yaml"
    platform.write_text("orchestrators: {grove: {enabled: true}}\n")
    config = {
        "dynamo-pulumi:graph": str(EXAMPLES / "multinode-grove" / "graph.yaml"),
        "dynamo-pulumi:namespace": "team-x",
        "dynamo-pulumi:platform": str(platform),
    }
    rec = _run_main(REPO / "__main__.py", config)
    assert rec.by_type(DGD_TYPE)[0].name == "vllm-multinode"
    (pcs,) = rec.by_type("kubernetes:grove.io/v1alpha1:PodCliqueSet")
    assert pcs.name == "team-x/vllm-multinode"


def test_aggregated_example_creates_its_namespace_first():
    rec = _run_main(EXAMPLES / "aggregated-vllm" / "__main__.py")
    ns = rec.named("namespace")
    objects = [r for r in rec.resources if r.custom and r.type.startswith("kubernetes:") and r is not ns]
    assert objects and all(ns.urn in r.dependencies for r in objects)


def test_disaggregated_planner_example_deploys_the_dgd_and_ignores_scaled_worker_replicas():
    rec = _run_main(EXAMPLES / "disaggregated-planner" / "__main__.py")
    (dgd,) = rec.by_type("kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment")
    assert dgd.name == "dynamo/vllm-disagg-planner"
    # The planner scales the prefill and decode workers through their scaling adapters.
    assert dgd.ignore_changes == ("spec.components[2].replicas", "spec.components[3].replicas")
    assert rec.by_type("kubernetes:apps/v1:Deployment") == []


def test_multinode_grove_example_renders_one_podcliqueset_with_replace_rules():
    rec = _run_main(EXAMPLES / "multinode-grove" / "__main__.py")
    (pcs,) = rec.by_type("kubernetes:grove.io/v1alpha1:PodCliqueSet")
    assert pcs.delete_before_replace and pcs.replace_on_changes


@pytest.mark.parametrize(("example", "modules"), [
    ("eks-gpu-node-group", ("pulumi_aws", "pulumi_eks")),
    ("gke-gpu-node-pool", ("pulumi_gcp",)),
])
def test_cloud_examples_run_with_their_real_sdks(example, modules):
    """The ``test`` extra installs the SDKs; composition is checked in test_examples_cloud.py."""
    main = EXAMPLES / example / "__main__.py"
    py_compile.compile(str(main), doraise=True)
    assert (EXAMPLES / example / "requirements.txt").is_file()
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    assert not missing, f"cloud SDKs missing (pip install -e '.[test]'): {', '.join(missing)}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the SDKs' own deprecation notices
        rec = _run_main(main)
    assert rec.by_type(DGD_TYPE)


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.iterdir()
                                            if p.is_dir() and not p.name.startswith("plugin-")))
def test_every_example_is_a_pulumi_project_with_requirements(example):
    """Python examples; the ``plugin-*`` ones (TypeScript, YAML) are tests/test_plugin_examples.py's."""
    folder = EXAMPLES / example
    assert (folder / "Pulumi.yaml").is_file()
    assert (folder / "__main__.py").is_file()
    assert "../.." in (folder / "requirements.txt").read_text()


def test_operator_mode_example_installs_the_platform_chart_before_the_dgd():
    rec = _run_main(EXAMPLES / "operator-mode" / "__main__.py")
    (chart,) = rec.by_type("kubernetes:helm.sh/v4:Chart")
    assert chart.inputs["values"]["dynamo-operator"]["discoveryBackend"] == "kubernetes"
    (dgd,) = rec.by_type("kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment")
    assert chart.urn in dgd.dependencies  # after the CRDs exist and the operator Deployment is ready
    assert rec.by_type("kubernetes:apps/v1:Deployment") == []  # the operator creates the workloads
    planner = next(c for c in dgd.inputs["spec"]["components"] if c["type"] == "planner")
    assert "dynamo.planner" in planner["podTemplate"]["spec"]["containers"][0]["command"]


def test_operator_mode_example_bundles_nats_and_etcd_for_etcd_discovery():
    config = {"dynamo:discovery": "etcd", "dynamo:grove": "true"}  # the mock runner's project is "dynamo"
    rec = _run_main(EXAMPLES / "operator-mode" / "__main__.py", config)
    values = rec.by_type("kubernetes:helm.sh/v4:Chart")[0].inputs["values"]
    assert values["global"]["nats"]["install"] and values["global"]["etcd"]["install"]
    assert values["global"]["grove"] == {"install": True, "enabled": True}
    assert values["dynamo-operator"]["etcdAddr"].startswith("http://dynamo-platform-etcd.dynamo-system")
