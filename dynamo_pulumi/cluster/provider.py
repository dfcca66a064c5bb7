"""The readiness dynamic provider: ``pulumi up`` returns only when the graph serves.

Pulumi's dynamic-provider host (``python -m pulumi.dynamic``) unpickles this class *by
reference* (module + class name), so it lives in an importable module and keeps no state: every
method rebuilds what it needs from its inputs, and the Kubernetes client is created inside
``create``/``update``/``read`` only, never kept on the instance (a live client cannot be
pickled, and credentials must come from inputs). Module path, class name and input names are a
contract with saved stack states: renaming any of them breaks existing stacks.

Lifecycle (readiness-lifecycle B4):

* ``check`` refuses malformed inputs field by field (a CheckFailure names the input);
* ``check`` takes unknown values as the host delivers them (``pulumi.output.Unknown``
  objects; the UNKNOWN string too), anywhere in an input;
* ``diff`` never calls the cluster (it runs in ``pulumi preview``). Any change of what is
  watched or of its ``revision`` is an update; only a change of identity (namespace, graph
  name, kind, mode) replaces. A change of the connection (``kubeconfig``, ``context``) or the
  timeout alone is an update too, but ``update`` then does not wait: it only writes the new
  inputs into the state, so ``pulumi refresh`` connects with the current kubeconfig, not the
  one of the last create;
* ``create``/``update`` wait (unless ``wait`` is false) and return the status outputs; a
  timeout or failure raises with one line per unready component. The engine's custom
  timeouts never reach a dynamic provider, so ``timeout_seconds`` is the deadline. The host
  answers whatever a method raises with its traceback; for our errors it answers with the
  message alone (:mod:`dynamo_pulumi.cluster.host_errors`, installed when the host imports this
  module), so the user reads the reason, not the host's frames;
* ``read`` (``pulumi refresh``) reads the status once, without waiting;
* with ``wait`` false nothing calls the cluster: not ``create``/``update``, not ``read``;
* ``delete`` deletes nothing: the readiness resource owns no cluster object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)

from dynamo_pulumi.cluster import host_errors
from dynamo_pulumi.errors import DynamoPulumiError
from dynamo_pulumi.readiness.deadline import DEFAULT_TIMEOUT_SECONDS
from dynamo_pulumi.readiness.status import GraphStatus
from dynamo_pulumi.readiness.targets import DCD_KIND, DGD_KIND, MODES, WaitRequest, WatchTarget

#: Inputs whose change replaces the readiness resource (it then watches a different graph).
IDENTITY_INPUTS: Final = ("namespace", "graph", "kind", "mode")
#: Inputs whose change means "something else is deployed now": wait again.
WATCHED_INPUTS: Final = ("targets", "revision", "pod_selector", "expansion", "predicted", "wait")
#: Inputs whose change is written to the state without a wait (how to reach the cluster, how long).
CONNECTION_INPUTS: Final = ("timeout_seconds", "kubeconfig", "context")
#: Every input the resource takes (see :class:`dynamo_pulumi.resources.readiness.ReadinessArgs`).
INPUTS: Final = (*IDENTITY_INPUTS, *WATCHED_INPUTS, *CONNECTION_INPUTS)
#: Status outputs (mirroring the DGD status the operator writes) and the drift report.
OUTPUTS: Final = ("state", "ready", "components", "drift")
#: Outputs when waiting is switched off: nothing was observed.
NOT_WAITED: Final = {"state": "", "ready": {}, "components": {}, "drift": []}
#: What the engine sends for a value not known during preview (pulumi/pulumi#6310).
UNKNOWN: Final = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

host_errors.install()  # in the dynamic-provider host only: our errors shown as their message


def is_unknown(value: Any) -> bool:
    """A value not known during preview: the host's ``Unknown`` object or the wire sentinel."""
    from pulumi.output import Unknown

    return isinstance(value, Unknown) or (isinstance(value, str) and value == UNKNOWN)


def _has_unknown(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(_has_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_unknown(v) for v in value)
    return is_unknown(value)


def _plain(props: Mapping[str, Any]) -> dict[str, Any]:
    """``props`` with secret-wrapped values unwrapped (a host that accepts secrets, or state
    written by one, hands the kubeconfig over as ``{sig: secret, value: ...}``)."""
    from pulumi.runtime.rpc import unwrap_rpc_secret

    return {key: unwrap_rpc_secret(value) for key, value in props.items()}


def wait_request(props: Mapping[str, Any]) -> WaitRequest:
    """The waiter's request from the resource's inputs."""
    return WaitRequest(
        mode=props.get("mode") or "render",
        kind=str(props.get("kind") or DGD_KIND),
        graph=str(props["graph"]),
        namespace=str(props["namespace"]),
        targets=tuple(WatchTarget.from_input(t) for t in props.get("targets") or ()),
        timeout_seconds=float(props.get("timeout_seconds") or DEFAULT_TIMEOUT_SECONDS),
        pod_selector=str(props.get("pod_selector") or ""),
    )


def _check_failures(news: Mapping[str, Any]) -> list[CheckFailure]:
    failures = []
    mode, kind = news.get("mode"), news.get("kind")
    if not is_unknown(mode) and mode not in MODES:
        failures.append(CheckFailure("mode", f"must be one of {', '.join(MODES)}, not {mode!r}"))
    if not is_unknown(kind) and kind not in (DGD_KIND, DCD_KIND):
        failures.append(CheckFailure("kind", f"must be {DGD_KIND} or {DCD_KIND}"))
    for key in ("graph", "namespace"):
        if not is_unknown(news.get(key)) and (not isinstance(news.get(key), str) or not news.get(key)):
            failures.append(CheckFailure(key, "must be a non-empty string"))
    timeout = news.get("timeout_seconds")
    if not is_unknown(timeout) and (not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0):
        failures.append(CheckFailure("timeout_seconds", f"must be a positive number of seconds, not {timeout!r}"))
    targets = news.get("targets")
    if not is_unknown(targets):
        if not isinstance(targets, list):
            failures.append(CheckFailure("targets", "must be a list of watch targets"))
        else:
            for index, target in enumerate(targets):
                if _has_unknown(target):
                    continue  # known at update time; checked then
                try:
                    WatchTarget.from_input(target)
                except Exception as exc:
                    failures.append(CheckFailure(f"targets[{index}]", str(exc).splitlines()[0]))
    return failures


def connection_only(olds: Mapping[str, Any], news: Mapping[str, Any]) -> bool:
    """Whether an update changes only how the cluster is reached (kubeconfig, context) or how long
    a wait may take: the state records the new values without a new wait, so a later refresh uses
    the current connection (both transports answer an update by this rule)."""
    return not any(_plain(olds).get(key) != _plain(news).get(key) for key in WATCHED_INPUTS)


def kept_outputs(olds: Mapping[str, Any], news: Mapping[str, Any]) -> dict[str, Any]:
    """The new inputs with the status last observed (a connection-only update)."""
    return {**news, **{key: olds.get(key) for key in OUTPUTS}}


class ReadinessProvider(ResourceProvider):
    """See the module docstring. Stateless: safe to pickle by reference and to share."""

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        return CheckResult(news, _check_failures(news))

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        olds, news = _plain(olds), _plain(news)
        replaces = [key for key in IDENTITY_INPUTS if olds.get(key) != news.get(key)]
        changed = [key for key in (*WATCHED_INPUTS, *CONNECTION_INPUTS) if olds.get(key) != news.get(key)]
        return DiffResult(changes=bool(replaces or changed), replaces=replaces, delete_before_replace=False)

    def create(self, props: dict[str, Any]) -> CreateResult:
        request = wait_request(props)
        try:
            outputs = self._settle(props)
        except DynamoPulumiError as exc:
            # The host prints the whole traceback: re-raised here, the user reads one frame of ours.
            raise exc.with_traceback(None) from None
        return CreateResult(f"{request.namespace}/{request.graph}", {**props, **outputs})

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        if connection_only(olds, news):
            return UpdateResult(kept_outputs(olds, news))
        try:
            outputs = self._settle(news)
        except DynamoPulumiError as exc:
            raise exc.with_traceback(None) from None
        return UpdateResult({**news, **outputs})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        if props.get("wait", True) is False:
            return ReadResult(id_, dict(props))  # waiting is off: no cluster, not even on refresh
        from dynamo_pulumi.cluster.session import open_waiter

        try:
            status = open_waiter(_plain(props), wait_request(props)).status()
        except DynamoPulumiError as exc:
            raise exc.with_traceback(None) from None
        return ReadResult(id_, {**props, **_status_outputs(status, props.get("drift") or [])})

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        return None

    def _settle(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Wait and return the status outputs; with ``wait`` false, touch no cluster at all
        (the outputs stay empty)."""
        import pulumi

        from dynamo_pulumi.cluster.session import drift_after_wait, open_waiter

        if props.get("wait", True) is False:
            return dict(NOT_WAITED)
        request = wait_request(props)
        waiter = open_waiter(_plain(props), request, progress=lambda line: pulumi.log.info(f"{request.label}: {line}"))
        status = waiter.wait()
        findings = drift_after_wait(waiter, props.get("predicted") or [])
        return _status_outputs(status, findings)


def _status_outputs(status: GraphStatus, drift: list[dict[str, Any]]) -> dict[str, Any]:
    return {**status.outputs(), "drift": drift}
