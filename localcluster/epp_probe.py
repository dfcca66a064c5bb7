"""Probe the real Dynamo operator with EndpointPickerConfig edge cases and record what it does.

The operator's defaulting webhook decodes ``eppConfig.config`` into the Go type of
gateway-api-inference-extension and writes it back, and the API server then judges that
re-encoding against the CRD's EndpointPickerConfig schema. Which absences become errors (a
``null`` weight) and which do not (an empty ``type``) is the operator's behaviour, not ours to
guess: this creates each case below as a v1beta1 and a v1alpha1 graph with ``kubectl create``
(strict field validation, kubectl's default) on a local cluster beside a build of the operator,
and writes the outcome (refused with its message, or accepted with the config as stored) to a
YAML file. ``tests/test_epp_probe_recorded.py`` holds our verdict and our prediction of the
stored config to that file in CI, where the operator cannot run (its module is refused by the
proxy: ``tests/fixtures/operator_recordings/README.md``)::

    python -m localcluster.epp_probe --operator /tmp/hop-build/bin/dynamo-operator \\
        --operator-commit 2a6da14c --crd <inferencepools CRD> --out tests/fixtures/operator_probes/epp-config.yaml
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from localcluster.cluster import LocalCluster
from localcluster.crds import cluster_crds
from localcluster.dynamo_operator import start_dynamo_operator
from localcluster.recorder import GPU_DEVICE_CLASS, platform_for
from localcluster.tools import ToolSet, ensure_tools

NAMESPACE = "probe"
IMAGE = "nvcr.io/nvidia/ai-dynamo/epp:1.4.0"
_FULL: dict[str, Any] = {
    "plugins": [{"type": "single-profile-handler"}, {"name": "picker", "type": "max-score-picker"}],
    "schedulingProfiles": [{"name": "default", "plugins": [{"pluginRef": "picker", "weight": 1}]}],
}
#: name -> eppConfig.config. Each absence or wrong value the Go round trip treats differently.
CASES: dict[str, dict[str, Any]] = {
    "full": _FULL,
    "no-weight": {"plugins": _FULL["plugins"], "schedulingProfiles": [{"name": "default", "plugins": [{"pluginRef": "picker"}]}]},
    "no-type": {"plugins": [{"name": "picker"}], "schedulingProfiles": _FULL["schedulingProfiles"]},
    "no-type-no-profiles": {"plugins": [{"name": "no-type"}], "schedulingProfiles": []},
    "no-plugin-ref": {"plugins": _FULL["plugins"], "schedulingProfiles": [{"name": "default", "plugins": [{"weight": 1}]}]},
    "no-profile-name": {"plugins": _FULL["plugins"], "schedulingProfiles": [{"plugins": [{"pluginRef": "picker", "weight": 1}]}]},
    "no-scheduling-profiles": {"plugins": [{"type": "queue-scorer"}]},
    "profile-without-plugins": {"plugins": _FULL["plugins"], "schedulingProfiles": [{"name": "default"}]},
    "empty": {},
    "weight-as-string": {"plugins": _FULL["plugins"], "schedulingProfiles": [{"name": "default", "plugins": [{"pluginRef": "picker", "weight": "2"}]}]},
    "plugins-not-a-list": {"plugins": {"a": 1}, "schedulingProfiles": []},
    "unknown-field-in-plugin": {"plugins": [{"type": "queue-scorer", "extra": 1}], "schedulingProfiles": []},
    "unknown-top-level-key": {**_FULL, "futureTopLevel": {"a": 1}},
    "parameters": {"plugins": [{"name": "p", "type": "prefix-cache-scorer", "parameters": {"hashBlockSize": 5}}],
                   "schedulingProfiles": [{"name": "default", "plugins": [{"pluginRef": "p", "weight": 3}]}]},
    "feature-gates-and-saturation": {**_FULL, "featureGates": ["dataLayer"], "saturationDetector": {"queueDepthThreshold": 3}},
    "empty-feature-gates": {**_FULL, "featureGates": []},
    "saturation-zeros": {**_FULL, "saturationDetector": {"queueDepthThreshold": 0, "kvCacheUtilThreshold": 0}},
    "saturation-empty": {**_FULL, "saturationDetector": {}},
    "staleness-minutes": {**_FULL, "saturationDetector": {"metricsStalenessThreshold": "90m", "kvCacheUtilThreshold": 0.8}},
    "staleness-fraction": {**_FULL, "saturationDetector": {"metricsStalenessThreshold": "1.5s"}},
    "staleness-milliseconds": {**_FULL, "saturationDetector": {"metricsStalenessThreshold": "1500ms"}},
    "staleness-sub-second": {**_FULL, "saturationDetector": {"metricsStalenessThreshold": "250ms"}},
    "staleness-invalid": {**_FULL, "saturationDetector": {"metricsStalenessThreshold": "soon"}},
    "staleness-empty": {**_FULL, "saturationDetector": {"metricsStalenessThreshold": ""}},
    "weight-zero": {"plugins": _FULL["plugins"], "schedulingProfiles": [{"name": "default", "plugins": [{"pluginRef": "picker", "weight": 0}]}]},
}


def documents(name: str, config: dict[str, Any], index: int) -> list[dict[str, Any]]:
    """The case as a v1beta1 and a v1alpha1 graph with one EPP component."""
    beta = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": f"b{index}", "namespace": NAMESPACE},
            "spec": {"components": [{"name": "epp", "type": "epp", "eppConfig": {"config": config},
                                     "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}]}}
    alpha = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
             "metadata": {"name": f"a{index}", "namespace": NAMESPACE},
             "spec": {"services": {"epp": {"componentType": "epp", "eppConfig": {"config": config},
                                           "extraPodSpec": {"mainContainer": {"image": IMAGE}}}}}}
    return [beta, alpha]


def _stored_config(cluster: LocalCluster, doc: dict[str, Any]) -> Any:
    """The config as stored (read back in the version it was created in)."""
    version = doc["apiVersion"].split("/")[1]
    stored = json.loads(cluster.kubectl("get", f"dynamographdeployments.{version}.nvidia.com", doc["metadata"]["name"],
                                        "-n", NAMESPACE, "-o", "json"))
    spec = stored["spec"]
    holder = spec["components"][0] if "components" in spec else spec["services"]["epp"]
    return holder.get("eppConfig", {}).get("config")


def probe(cluster: LocalCluster) -> list[dict[str, Any]]:
    outcomes = []
    for index, (name, config) in enumerate(CASES.items()):
        for doc in documents(name, config, index):
            result = cluster.kubectl_result("create", "-f", "-", "-o", "json", input=json.dumps(doc))
            outcome: dict[str, Any] = {"case": name, "input": doc, "accepted": result.returncode == 0}
            if result.returncode == 0:
                outcome["stored"] = _stored_config(cluster, doc)
            else:
                outcome["message"] = result.stderr.strip()
            outcomes.append(outcome)
    for outcome in outcomes:
        if outcome["accepted"]:
            name = outcome["input"]["metadata"]["name"]
            outcome["config_map"] = _config_map_data(cluster, name)
            outcome["dcd_config"] = _dcd_config(cluster, f"{name}-epp")
    return outcomes


def _config_map_data(cluster: LocalCluster, graph: str, timeout: float = 90.0) -> Any:
    """The ``<graph>-epp-config`` ConfigMap's data once the operator has written it (None if it
    never does within ``timeout``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = cluster.kubectl_result("get", "configmap", f"{graph}-epp-config", "-n", NAMESPACE, "-o", "json")
        if result.returncode == 0:
            return json.loads(result.stdout).get("data")
        time.sleep(1.0)
    return None


def _dcd_config(cluster: LocalCluster, name: str) -> Any:
    """``spec.eppConfig.config`` of the EPP component's DCD (written before the ConfigMap)."""
    result = cluster.kubectl_result("get", "dynamocomponentdeployments.nvidia.com", name, "-n", NAMESPACE, "-o", "json")
    if result.returncode != 0:
        return None
    return json.loads(result.stdout)["spec"].get("eppConfig", {}).get("config")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--operator", required=True, type=Path, help="a build of the Dynamo operator")
    parser.add_argument("--operator-commit", required=True, help="the commit it was built from (recorded)")
    parser.add_argument("--crd", action="append", default=[], type=Path, help="an extra CRD (the InferencePool's)")
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    tools = ensure_tools(("kube", "etcd", "kwok", "lws"))
    with tempfile.TemporaryDirectory() as work:
        cluster = LocalCluster(Path(work) / "cluster", tools, crds=(*cluster_crds(tools), *args.crd))
        cluster.start()
        try:
            cluster.apply([GPU_DEVICE_CLASS])
            started = time.monotonic()
            start_dynamo_operator(cluster, args.operator, platform_for("pathway"))
            ready = time.monotonic() - started
            cluster.kubectl("create", "namespace", NAMESPACE)
            outcomes = probe(cluster)
        finally:
            cluster.stop()
    record = {"operator_commit": args.operator_commit, "kubectl": _kubectl_version(tools),
              "recorded": time.strftime("%Y-%m-%d"), "operator_ready_s": round(ready, 1),
              "client": "kubectl create (strict field validation)", "outcomes": outcomes}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(yaml.safe_dump(record, sort_keys=False, width=120))
    accepted = sum(o["accepted"] for o in outcomes)
    print(f"{len(outcomes)} graphs: {accepted} accepted, {len(outcomes) - accepted} refused -> {args.out}")


def _kubectl_version(tools: ToolSet) -> str:
    """The client and control-plane build the probe ran on (the tools' own kubectl)."""
    out = subprocess.run([str(tools.program("kubectl")), "version", "--client", "-o", "json"],
                         capture_output=True, text=True, check=True).stdout
    return str(json.loads(out)["clientVersion"]["gitVersion"])


if __name__ == "__main__":
    main()
