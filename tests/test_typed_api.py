"""The typed Python API: models exported under names that do not clash with the components,
visible to ``mypy --strict`` after the README's install (py.typed), a misspelt field caught by the
type checker, every field described, pod templates as dicts or ``pulumi_kubernetes`` *Args."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import itertools
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pulumi_kubernetes as k8s
import pytest
from pydantic import BaseModel

from dynamo_pulumi import api
from dynamo_pulumi.api import ComponentSpec, Graph, GraphSpec
from dynamo_pulumi.mocks import run_program
from dynamo_pulumi.resources import DCD_TYPE, DGD_TYPE, DynamoGraphDeployment

PROGRAM = Path(__file__).resolve().parent / "typed_program" / "program.py"
NOT_VISIBLE = (
    "mypy cannot see dynamo_pulumi: an editable install made before pyproject.toml set package-dir "
    "uses an import hook; reinstall with `pip install -e '.[test]'` (scripts/test.sh does)"
)


def mypy_strict(path: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """mypy --strict run from a directory outside the repository, so the package is found only
    as installed."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), str(path)],
        cwd=cache.parent, capture_output=True, text=True, check=False,
    )


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy") / "cache"


def test_the_typed_program_passes_mypy_strict(mypy_cache: Path) -> None:
    result = mypy_strict(PROGRAM, mypy_cache)
    assert "import-not-found" not in result.stdout, NOT_VISIBLE
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_misspelt_field_fails_mypy_strict_and_names_the_right_one(mypy_cache: Path, tmp_path: Path) -> None:
    typo = tmp_path / "typo.py"
    typo.write_text(PROGRAM.read_text().replace("replicas=replicas,", "replica=replicas,"))
    result = mypy_strict(typo, mypy_cache)
    assert result.returncode == 1
    assert 'Unexpected keyword argument "replica"' in result.stdout and 'did you mean "replicas"' in result.stdout


def test_an_output_of_the_wrong_type_fails_mypy_strict(mypy_cache: Path, tmp_path: Path) -> None:
    """``replicas`` is ``Input[int]``: an ``Output[int]`` passes (the program above), an
    ``Output[str]`` or a ``str`` does not."""
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        PROGRAM.read_text()
        .replace("replicas: pulumi.Output[int] = ", "replicas: pulumi.Output[str] = ")
        .replace("apply(lambda c: c.desired_size)", "apply(lambda c: str(c.desired_size))")
        .replace('type="frontend", replicas=1,', 'type="frontend", replicas="1",')
    )
    result = mypy_strict(wrong, mypy_cache)
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if '"replicas"' in line and "error:" in line]
    assert len(errors) == 2, result.stdout
    assert any('"Output[str]"' in line for line in errors) and any('"str"' in line for line in errors)


def test_the_package_ships_py_typed() -> None:
    assert (Path(api.__file__).parent.parent / "py.typed").is_file()


def test_the_typed_program_deploys_under_mocks() -> None:
    spec = importlib.util.spec_from_file_location("typed_program", PROGRAM)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rec, _ = run_program(module.deploy)
    assert [r.name for r in rec.by_type(DGD_TYPE)] == ["llama"]
    assert {r.name for r in rec.by_type(DCD_TYPE)} == {"inference/llama-frontend", "inference/llama-vllmworker"}
    (worker,) = [r for r in rec.by_type("kubernetes:apps/v1:Deployment") if "vllmworker" in r.name]
    # Both come from the node group's Outputs (desired_size 2, label "gpu"), resolved by the mocks.
    assert worker.inputs["spec"]["replicas"] == 2
    assert worker.inputs["spec"]["template"]["spec"]["nodeSelector"] == {"dynamo.nvidia.com/pool": "gpu"}


def test_model_names_do_not_clash_with_the_components() -> None:
    assert Graph is not DynamoGraphDeployment and issubclass(Graph, BaseModel)
    assert GraphSpec.__name__ == "DynamoGraphDeploymentSpec"
    assert ComponentSpec.__name__ == "DynamoComponentDeploymentSharedSpec"


def test_a_pod_template_args_object_is_stored_as_its_wire_mapping() -> None:
    template = k8s.core.v1.PodTemplateSpecArgs(
        spec=k8s.core.v1.PodSpecArgs(
            containers=[k8s.core.v1.ContainerArgs(name="main", image="x:1.0.0", image_pull_policy="Always")],
            node_selector={"pool": "gpu"},
        )
    )
    component = ComponentSpec(name="w", type="worker", pod_template=template)
    assert component.pod_template == {
        "spec": {"containers": [{"name": "main", "image": "x:1.0.0", "imagePullPolicy": "Always"}],
                 "nodeSelector": {"pool": "gpu"}}
    }


def test_args_objects_inside_a_dict_spec_are_accepted() -> None:
    container = k8s.core.v1.ContainerArgs(name="main", image="nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1")
    spec: dict[str, Any] = {
        "backendFramework": "vllm",
        "components": [{"name": "Frontend", "type": "frontend", "podTemplate": {"spec": {"containers": [container]}}}],
    }
    rec, _ = run_program(lambda: DynamoGraphDeployment("g", spec))
    (frontend,) = rec.by_type("kubernetes:apps/v1:Deployment")
    assert frontend.inputs["spec"]["template"]["spec"]["containers"][0]["image"].endswith(":1.3.1")


def _models() -> list[type[BaseModel]]:
    seen: list[type[BaseModel]] = []
    stack = [api.Graph, api.StandaloneComponent]
    while stack:
        model = stack.pop()
        if model in seen:
            continue
        seen.append(model)
        for field in model.model_fields.values():
            for sub in _model_types(field.annotation):
                stack.append(sub)
    return seen


def _model_types(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [t for arg in getattr(annotation, "__args__", ()) for t in _model_types(arg)]


def _attribute_docstrings(cls: type) -> dict[str, str]:
    """The string literal under each annotated attribute of ``cls``'s own body: what IDE hovers
    (Pylance/pyright, Jedi) show for a field, read from the source as they read it."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    found: dict[str, str] = {}
    for statement, following in itertools.pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[statement.target.id] = following.value.value
    return found


def _description(model: type[BaseModel], name: str) -> str:
    owner = next(c for c in model.__mro__ if name in getattr(c, "__annotations__", {}))
    return _attribute_docstrings(owner).get(name, "")


def test_every_field_of_the_v1beta1_models_has_a_one_line_description() -> None:
    missing = [
        f"{model.__name__}.{name}"
        for model in _models()
        for name in model.model_fields
        if not _description(model, name).strip() or "\n" in _description(model, name).strip()
    ]
    assert missing == []


def test_a_standalone_component_can_be_given_its_typed_spec() -> None:
    from dynamo_pulumi.api import StandaloneComponentSpec
    from dynamo_pulumi.resources import DynamoComponentDeployment

    image = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.1"
    spec = StandaloneComponentSpec(
        backend_framework="vllm", type="frontend",
        pod_template={"spec": {"containers": [{"name": "main", "image": image}]}},
    )
    rec, dcd = run_program(lambda: DynamoComponentDeployment("solo", spec))
    assert [r.name for r in rec.by_type(DCD_TYPE)] == ["solo"]
    assert dcd.plan.name == "solo"
