"""``internal/webhook/validation/dynamographdeployment_handler_test.go`` as an oracle for
``validate [--old] --mode operator`` on the envtest graph (``webhook_envtest_support``).

Not applicable (Go plumbing with no counterpart in a pure function): the ``ValidateCreate`` calls
without an admission request in the context or with a wrong GVK, ``ValidateDelete`` (no rule
runs on delete; we never validate a deletion), ``RegisterWithManager``, and "missing operator
identity does not block legacy provider materialization" (its OLD is a legacy object stored without
the defaulting webhook, so it has no provider annotation; ``validate --old`` takes OLD as applied
and admitted, so it carries the provider the webhook stamped, as in the three N/A envtest rows). The "deleting" case
passes the old object too: ``validate --old`` needs one (the Go handler ignores it).
"""

from __future__ import annotations

from webhook_envtest_support import admission, beta_dgd


def test_validate_create_of_the_envtest_graph_is_clean() -> None:
    """TestDynamoGraphDeploymentHandlerValidateCreate: no error, no warning."""
    assert admission(beta_dgd()) == ([], [])


def test_validate_update_valid() -> None:
    """TestDynamoGraphDeploymentHandlerValidateUpdate/valid."""
    assert admission(beta_dgd(), beta_dgd()) == ([], [])


def test_validate_update_deleting() -> None:
    """TestDynamoGraphDeploymentHandlerValidateUpdate/deleting: an object being deleted is admitted
    without validation (finalizers must come off), even one that breaks a rule."""
    def deleting(dgd: dict) -> None:
        dgd["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        dgd["spec"]["backendFramework"] = "sglang"
    errors, _ = admission(beta_dgd(deleting), beta_dgd())
    assert errors == []


def test_validate_update_stateless_validation_failure() -> None:
    """TestDynamoGraphDeploymentHandlerValidateUpdate/stateless validation failure."""
    errors, _ = admission(beta_dgd(lambda d: d["spec"].pop("components")), beta_dgd())
    assert errors == ["spec.components: Required value: must have at least one component"]


def test_validate_update_stateful_validation_failure() -> None:
    """TestDynamoGraphDeploymentHandlerValidateUpdate/stateful validation failure."""
    errors, _ = admission(beta_dgd(lambda d: d["spec"].update(backendFramework="sglang")), beta_dgd())
    assert errors == ['spec.backendFramework: Invalid value: "sglang": is immutable and cannot be changed after creation']

