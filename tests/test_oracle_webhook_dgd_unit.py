"""``internal/webhook/validation/dynamographdeployment_unit_test.go`` as an oracle: the elastic-EP
command rule (``TestValidateElasticEPRequiresCommand``, its table) and its wiring into DGD admission
(``TestDynamoGraphDeploymentRejectsElasticEPWithoutCommand``), through ``validate --mode operator``.

The Go table calls the rule on a bare shared spec; here the same main container is the worker of
the envtest graph, so the rule runs where admission runs it, and the assertion is the Go one: the
field paths of the errors. Not applicable: ``TestDynamoGraphDeploymentConversionFailureIsFatal``
(two components of one name make the Go webhook's internal compatibility view fail with a fatal,
non-field error; our admission refuses them first as field errors, the list-map key's
``Duplicate value`` and the case-insensitive-names CEL rule, which is the answer a user sees).
"""

from __future__ import annotations

import pytest
from webhook_envtest_support import admission, beta_dgd, platform, worker

GO = "TestValidateElasticEPRequiresCommand"
RAY_ARGS = ["--model", "test", "--data-parallel-backend", "ray", "--enable-elastic-ep"]
COMMAND_PATH = "spec.components[1].podTemplate.spec.containers[0].command"

# (case, backend, command, args, want paths); a case without a pod template has none to check.
TABLE = [
    ("vllm elastic-EP ray with empty command is rejected", "vllm", None, RAY_ARGS, [COMMAND_PATH]),
    ("vllm elastic-EP with -dpb=ray alias and empty command is rejected", "vllm", None,
     ["--model", "test", "-dpb=ray", "--enable-elastic-ep"], [COMMAND_PATH]),
    ("explicit command is accepted", "vllm", ["python3", "-m", "dynamo.vllm"], RAY_ARGS, []),
    ("elastic-EP flags carried in Command are accepted", "vllm",
     ["python3", "-m", "dynamo.vllm", "--data-parallel-backend", "ray", "--enable-elastic-ep"], None, []),
    ("non-vllm backend is not validated", "sglang", None, RAY_ARGS, []),
    ("vllm without elastic-EP is accepted", "vllm", None, ["--model", "test"], []),
    ("vllm elastic-EP on a non-ray backend is accepted", "vllm", None,
     ["--model", "test", "--data-parallel-backend", "mp", "--enable-elastic-ep"], []),
]


def _graph(backend: str, command: list[str] | None, args: list[str] | None) -> dict:
    def mutate(dgd: dict) -> None:
        dgd["spec"]["backendFramework"] = backend
        main = worker(dgd)["podTemplate"]["spec"]["containers"][0]
        if command is not None:
            main["command"] = command
        if args is not None:
            main["args"] = args
    return beta_dgd(mutate)


@pytest.mark.parametrize(("backend", "command", "args", "want"), [pytest.param(*row[1:], id=f"{GO}/{row[0]}")
                                                                  for row in TABLE])
def test_elastic_ep_requires_command(backend: str, command: list[str] | None, args: list[str] | None,
                                     want: list[str]) -> None:
    errors, _ = admission(_graph(backend, command, args), plat=platform())
    assert [e.split(": ", 1)[0] for e in errors] == want


def test_elastic_ep_rule_without_a_pod_template_is_ignored() -> None:
    """``TestValidateElasticEPRequiresCommand/nil pod template is ignored``: no main container,
    nothing for this rule (admission still asks for the image, a different rule)."""
    errors, _ = admission(beta_dgd(lambda d: worker(d).pop("podTemplate")), plat=platform())
    assert not any("command" in e for e in errors)


def test_dynamo_graph_deployment_rejects_elastic_ep_without_command() -> None:
    """``TestDynamoGraphDeploymentRejectsElasticEPWithoutCommand``: wired into DGD admission."""
    errors, _ = admission(_graph("vllm", None, RAY_ARGS), plat=platform())
    assert len(errors) == 1 and "requires an explicit container command" in errors[0]
