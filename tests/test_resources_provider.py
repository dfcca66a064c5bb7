"""The provider decides (issue 25, items 1-3), under Pulumi mocks with a monitor that records
every registration and its options:

1. the cluster the readiness resource watches is the one the children go to, for every way of
   passing a provider (``provider=``, ``providers=[...]``, ``providers={...}``, a parent's, a
   bare reference as ``Construct`` gets it), both transports and operator mode;
2. the provider's namespace is the graph's default namespace (children, readiness, preview);
3. namespace-shared ``*Patch`` children only where server-side apply is on, else one error
   before anything is registered.
"""

from __future__ import annotations

import copy
import json

import pulumi
import pulumi_kubernetes as k8s
import pytest
from resources_fixtures import graph_doc
from test_resources_tree import unknown_output

from dynamo_pulumi.errors import InputError
from dynamo_pulumi.mocks import Recording, run_program
from dynamo_pulumi.resources import DynamoComponentDeployment, DynamoGraphDeployment, ReadinessOptions
from dynamo_pulumi.resources.kube_provider import ChildrenProvider, children_provider
from dynamo_pulumi.resources.readiness_plugin import DYNAMIC_TYPE, TYPE

KC_A = "apiVersion: v1\nkind: Config\nclusters: [{name: a, cluster: {server: https://a}}]\n"
KC_B = "apiVersion: v1\nkind: Config\nclusters: [{name: b, cluster: {server: https://b}}]\n"
STACK_A = {"kubernetes:kubeconfig": KC_A, "kubernetes:context": "ctx-a"}
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
READINESS_TYPES = (DYNAMIC_TYPE, TYPE)
PATCH_TYPES = ("kubernetes:core/v1:ServiceAccountPatch", "kubernetes:rbac.authorization.k8s.io/v1:RoleBindingPatch")


def _doc(namespace: str | None = None, **kwargs):
    """The fixture graph without a namespace of its own (unless given)."""
    doc = copy.deepcopy(graph_doc(**kwargs))
    doc["metadata"].pop("namespace", None)
    if namespace:
        doc["metadata"]["namespace"] = namespace
    return doc


def _provider(**kwargs) -> k8s.Provider:
    return k8s.Provider("gke", **{"kubeconfig": KC_B, **kwargs})


def _readiness(rec: Recording):
    (found,) = [r for r in rec.resources if r.type in READINESS_TYPES]
    return found


def _kubernetes_children(rec: Recording):
    return [r for r in rec.resources if r.custom and r.type.startswith("kubernetes:")]


def _value(value):
    return value.get("value") if isinstance(value, dict) and value.get("4dabf18193072939515e22adb298388d") else value


# --- 1. the readiness cluster is the children's --------------------------------------------------

WAYS = {
    "provider=": lambda p: pulumi.ResourceOptions(provider=p),
    "providers=[...]": lambda p: pulumi.ResourceOptions(providers=[p]),
    "providers={...}": lambda p: pulumi.ResourceOptions(providers={"kubernetes": p}),
}


class Platform(pulumi.ComponentResource):
    """A user's own component holding the provider its children (our graph) inherit."""

    def __init__(self, provider: pulumi.ProviderResource) -> None:
        super().__init__("acme:index:Platform", "platform", None, pulumi.ResourceOptions(providers=[provider]))


def _with_parent(provider):
    return pulumi.ResourceOptions(parent=Platform(provider))


@pytest.mark.parametrize("transport", ["dynamic", "plugin"])
@pytest.mark.parametrize("mode", ["render", "operator"])
@pytest.mark.parametrize("way", [*WAYS, "parent"])
def test_the_readiness_watches_the_cluster_of_the_provider_the_children_use(way, mode, transport):
    opts_of = WAYS.get(way, _with_parent)

    def program():
        provider = _provider(context="ctx-b", cluster="b")
        DynamoGraphDeployment("llm", _doc("team-a"), mode=mode, opts=opts_of(provider),
                              readiness=ReadinessOptions(provider=transport))

    rec, _ = run_program(program, preview=False, config=STACK_A)
    provider_urn = rec.named("gke").urn
    children = _kubernetes_children(rec)
    assert children and all(c.provider_urn == provider_urn for c in children)  # they go to B ...
    readiness = _readiness(rec).inputs  # ... and so does the wait, not the stack's A
    assert readiness["kubeconfig"]["4dabf18193072939515e22adb298388d"] == SECRET_SIG
    assert _value(readiness["kubeconfig"]) == KC_B
    assert (readiness["context"], readiness["cluster"], readiness["ambient"]) == ("ctx-b", "b", False)


def test_the_sdk_gives_the_children_the_provider_we_predict():
    """children_provider mirrors Resource._get_providers for every way of passing one."""
    seen: dict[str, tuple[object, object]] = {}

    def program():
        a, b = k8s.Provider("a"), k8s.Provider("b")
        cases = {
            "provider": pulumi.ResourceOptions(provider=a),
            "providers list": pulumi.ResourceOptions(providers=[b]),
            "providers map": pulumi.ResourceOptions(providers={"kubernetes": a}),
            "both (the map wins)": pulumi.ResourceOptions(provider=a, providers={"kubernetes": b}),
            "parent": pulumi.ResourceOptions(parent=Platform(b)),
            "nothing": None,
        }
        for case, opts in cases.items():
            component = pulumi.ComponentResource("acme:index:C", case.replace(" ", "-"), None, opts)
            child = k8s.core.v1.ConfigMap(f"{case}-cm".replace(" ", "-"), opts=pulumi.ResourceOptions(parent=component))
            seen[case] = (children_provider(opts), child._provider)

    with pytest.warns(UserWarning, match="conflict between the `provider` field"):
        run_program(program, preview=False)
    assert all(predicted is actual for predicted, actual in seen.values()), seen


def test_with_the_default_provider_the_wait_uses_the_stack_config_and_otherwise_the_ambient_connection():
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", _doc("team-a")), preview=False,
                         config={**STACK_A, "kubernetes:cluster": "a"})
    readiness = _readiness(rec).inputs
    assert (_value(readiness["kubeconfig"]), readiness["context"], readiness["cluster"]) == (KC_A, "ctx-a", "a")
    assert readiness["ambient"] is False
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", _doc("team-a")), preview=False)
    readiness = _readiness(rec).inputs
    assert readiness["ambient"] is True and not readiness.get("kubeconfig") and not readiness.get("context")


def test_a_provider_without_a_kubeconfig_takes_kubeconfig_from_the_environment_like_its_children(monkeypatch):
    monkeypatch.setenv("KUBECONFIG", "/home/me/.kube/b.yaml")
    program = lambda: DynamoGraphDeployment(  # noqa: E731
        "llm", _doc("team-a"), opts=pulumi.ResourceOptions(provider=k8s.Provider("gke")))
    rec, _ = run_program(program, preview=False, config=STACK_A)
    readiness = _readiness(rec).inputs
    assert _value(readiness["kubeconfig"]) == "/home/me/.kube/b.yaml" and readiness["ambient"] is False
    monkeypatch.delenv("KUBECONFIG")
    rec, _ = run_program(program, preview=False, config=STACK_A)  # the stack's A is the default provider's only
    readiness = _readiness(rec).inputs
    assert readiness["ambient"] is True and _value(readiness.get("kubeconfig")) is None
    assert not readiness.get("context")


def test_an_explicit_readiness_connection_still_wins():
    program = lambda: DynamoGraphDeployment(  # noqa: E731
        "llm", _doc("team-a"), opts=pulumi.ResourceOptions(provider=_provider()),
        readiness=ReadinessOptions(kubeconfig=KC_A, context="other"))
    readiness = _readiness(run_program(program, preview=False)[0]).inputs
    assert (_value(readiness["kubeconfig"]), readiness["context"], readiness["ambient"]) == (KC_A, "other", False)


def test_a_bare_provider_reference_as_construct_gets_it_is_read_from_the_engine():
    """The plugin's Construct hands the component a DependencyProviderResource (URN and id only)."""
    from pulumi.resource import DependencyProviderResource
    from pulumi.runtime.sync_await import _sync_await

    def program():
        real = _provider(namespace="inference", context="ctx-b")
        urn, id_ = _sync_await(real.urn.future()), _sync_await(real.id.future())
        DynamoGraphDeployment("llm", _doc(), opts=pulumi.ResourceOptions(
            providers={"kubernetes": DependencyProviderResource(f"{urn}::{id_}")}))

    rec, _ = run_program(program, preview=False)
    readiness = _readiness(rec).inputs
    assert _value(readiness["kubeconfig"]) == KC_B and readiness["context"] == "ctx-b"
    assert readiness["namespace"] == "inference"
    assert all(c.inputs["metadata"]["namespace"] == "inference" for c in _kubernetes_children(rec))


def test_a_standalone_component_follows_its_provider_too():
    from test_resources_tree import DCD_DOC

    doc = copy.deepcopy(DCD_DOC)
    doc["metadata"].pop("namespace", None)
    rec, _ = run_program(lambda: DynamoComponentDeployment(
        "solo", doc, opts=pulumi.ResourceOptions(provider=_provider(namespace="inference"))), preview=False)
    readiness = _readiness(rec).inputs
    assert _value(readiness["kubeconfig"]) == KC_B and readiness["namespace"] == "inference"


# --- 2. the provider's namespace is the graph's default ------------------------------------------

def _namespaces(rec: Recording) -> set[str]:
    return {c.inputs["metadata"]["namespace"] for c in _kubernetes_children(rec)}


def test_the_provider_namespace_is_where_every_child_and_the_wait_go():
    rec, _ = run_program(lambda: DynamoGraphDeployment(
        "llm", _doc(), opts=pulumi.ResourceOptions(provider=_provider(namespace="inference"))), preview=False)
    assert _namespaces(rec) == {"inference"}
    assert all(c.name.split("/")[0] in ("inference", "llm:inference") for c in _kubernetes_children(rec))
    readiness = _readiness(rec)
    assert readiness.name == "inference/llm" and readiness.inputs["namespace"] == "inference"
    assert {t["namespace"] for t in readiness.inputs["targets"]} == {"inference"}
    bindings = [c for c in _kubernetes_children(rec) if c.type.endswith("RoleBinding")]
    assert {s["namespace"] for b in bindings for s in b.inputs["subjects"]} == {"inference"}


def test_an_object_namespace_wins_over_the_provider_namespace_as_in_pulumi_kubernetes():
    opts = lambda: pulumi.ResourceOptions(provider=_provider(namespace="inference"))  # noqa: E731
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", _doc("team-a"), opts=opts()), preview=False)
    assert _namespaces(rec) == {"team-a"}
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", _doc(), namespace="ops", opts=opts()), preview=False)
    assert _namespaces(rec) == {"ops"}


def test_the_default_provider_namespace_is_the_stack_config():
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", _doc()), preview=False,
                         config={"kubernetes:namespace": "from-stack"})
    assert _namespaces(rec) == {"from-stack"} and _readiness(rec).inputs["namespace"] == "from-stack"
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", _doc()), preview=False)
    assert _namespaces(rec) == {"default"}


def test_an_unknown_provider_namespace_is_refused_only_where_it_is_needed():
    def program(namespace=None):
        provider = _provider(namespace=unknown_output())
        DynamoGraphDeployment("llm", _doc(), namespace=namespace, opts=pulumi.ResourceOptions(provider=provider))

    with pytest.raises(InputError, match=r'^DynamoGraphDeployment "llm": the namespace of provider "gke" is not known yet .* pass namespace='):
        run_program(program, preview=True)
    rec, _ = run_program(lambda: program("given"), preview=True)
    assert _namespaces(rec) == {"given"}


def test_a_provider_namespace_that_is_no_namespace_is_one_error_naming_the_provider():
    with pytest.raises(InputError, match=r"^DynamoGraphDeployment \"llm\": the namespace 'Team_A' of provider \"gke\" is not a valid Kubernetes namespace"):
        run_program(lambda: DynamoGraphDeployment(
            "llm", _doc(), opts=pulumi.ResourceOptions(provider=_provider(namespace="Team_A"))), preview=True)


def test_the_root_program_and_deploy_take_the_provider_namespace():
    from dynamo_pulumi.program.graph_program import deploy

    rec, top = run_program(lambda: deploy(_doc(), opts=pulumi.ResourceOptions(provider=_provider(namespace="ml"))),
                           preview=True)
    assert top.plan.namespace == "ml" and _namespaces(rec) == {"ml"}


def test_preview_of_a_program_shows_the_provider_namespace(tmp_path, capsys):
    from dynamo_pulumi.cli import main

    (tmp_path / "graph.json").write_text(json.dumps(_doc()))
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(
        "import pulumi, pulumi_kubernetes as k8s\n"
        "from dynamo_pulumi.resources import DynamoGraphDeployment\n"
        "p = k8s.Provider('gke', namespace='inference')\n"
        "DynamoGraphDeployment('llm', 'graph.json', opts=pulumi.ResourceOptions(provider=p))\n"
    )
    assert main(["preview", str(tmp_path), "-o", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [g["namespace"] for g in document["graphs"]] == ["inference"]
    children = [r for r in document["resources"] if r["type"].startswith("kubernetes:")]
    assert {r["inputs"]["metadata"]["namespace"] for r in children} == {"inference"}
    (provider,) = {r["provider"] for r in children}  # every child names the provider it goes through
    assert provider.startswith("urn:pulumi:dev::p::") and provider.endswith("pulumi:providers:kubernetes::gke")


# --- 3. patches only with server-side apply ------------------------------------------------------

def test_server_side_apply_off_is_one_error_before_anything_of_the_graph_is_registered():
    recording = Recording()
    with pytest.raises(InputError) as raised:
        run_program(lambda: DynamoGraphDeployment(
            "llm", _doc("team-a"), opts=pulumi.ResourceOptions(provider=_provider(enable_server_side_apply=False))),
            preview=True, recording=recording)
    message = str(raised.value)
    assert message.startswith('DynamoGraphDeployment "llm": provider "gke" has server-side apply off')
    assert "ServiceAccount planner-serviceaccount, RoleBinding planner-serviceaccount-binding" in message
    assert "(ServiceAccountPatch, RoleBindingPatch)" in message and "enable_server_side_apply=True" in message
    assert isinstance(raised.value, pulumi.RunError)  # pulumi up prints it without a traceback
    assert [r.type for r in recording.resources] == ["pulumi:providers:kubernetes"]


@pytest.mark.parametrize("config, env", [
    ({"kubernetes:enableServerSideApply": "false"}, None),
    ({}, "false"),
])
def test_the_default_provider_with_server_side_apply_off_is_refused_too(config, env, monkeypatch):
    if env is not None:
        monkeypatch.setenv("PULUMI_K8S_ENABLE_SERVER_SIDE_APPLY", env)
    with pytest.raises(InputError, match="the default kubernetes provider has server-side apply off"):
        run_program(lambda: DynamoGraphDeployment("llm", _doc("team-a")), preview=True, config=config)


def test_the_stack_config_wins_over_the_environment_as_in_pulumi_kubernetes(monkeypatch):
    monkeypatch.setenv("PULUMI_K8S_ENABLE_SERVER_SIDE_APPLY", "false")
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", _doc("team-a")), preview=True,
                         config={"kubernetes:enableServerSideApply": "true"})
    assert {r.type for r in rec.resources} >= set(PATCH_TYPES)


def test_without_shared_objects_or_in_operator_mode_server_side_apply_off_is_fine():
    off = lambda: pulumi.ResourceOptions(provider=_provider(enable_server_side_apply=False))  # noqa: E731
    restricted = {"namespace": {"restricted": "team-a"}}  # a namespace-scoped operator shares no RBAC
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", _doc("team-a"), platform=restricted, opts=off()))
    assert not {r.type for r in rec.resources} & set(PATCH_TYPES)
    rec, _ = run_program(lambda: DynamoGraphDeployment("llm", _doc("team-a"), mode="operator", opts=off()))
    assert rec.by_type("kubernetes:nvidia.com/v1beta1:DynamoGraphDeployment")


def test_with_server_side_apply_on_the_shared_objects_are_patches():
    rec, _ = run_program(lambda: DynamoGraphDeployment(
        "llm", _doc("team-a"), opts=pulumi.ResourceOptions(provider=_provider(enable_server_side_apply=True))))
    assert {r.type for r in rec.resources} >= set(PATCH_TYPES)


def test_the_describe_of_a_provider_names_it():
    assert ChildrenProvider().describe() == "the default kubernetes provider"


def test_server_side_apply_not_known_at_preview_is_decided_at_up():
    """An unknown setting (another resource's output) is no error in preview; `up` reads it."""
    rec, _ = run_program(lambda: DynamoGraphDeployment(
        "llm", _doc("team-a"), opts=pulumi.ResourceOptions(provider=_provider(enable_server_side_apply=unknown_output())),
    ), preview=True)
    assert {r.type for r in rec.resources} >= set(PATCH_TYPES)
