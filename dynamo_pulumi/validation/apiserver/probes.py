"""Probes and lifecycle handlers: ``validateProbe`` / ``validateHandler`` (exactly one handler,
non-negative timings), ``validateLivenessProbe`` / ``validateStartupProbe`` (``successThreshold``
must be 1), ``validateReadinessProbe`` (no ``terminationGracePeriodSeconds``),
``validateLifecycle``, and the handler actions (``validateHTTPGetAction``, ``validateExecAction``,
``validateTCPSocketAction``, ``validateGRPCAction``, ``validateSleepAction``: a hook's sleep is
0 to the pod's ``terminationGracePeriodSeconds`` seconds, 30 when unset).

The API server defaults a probe's zero timings (period 10 s, timeout 1 s, thresholds 1 and 3)
before it validates, so only negative values written by the user are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynamo_pulumi.errors import FieldError, Path, forbidden, invalid, not_supported, required
from dynamo_pulumi.validation.apiserver._common import integer, items, mapping, text
from dynamo_pulumi.validation.apiserver.ports import port_num_or_name_errors

NEGATIVE_MESSAGE = "must be greater than or equal to 0"
_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
_TIMINGS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold")
_SCHEMES = ("HTTP", "HTTPS")


def probe_errors(probe: Any, path: Path, kind: str) -> list[FieldError]:
    """``validate{Liveness,Readiness,Startup}Probe`` (``kind``: liveness, readiness, startup)."""
    if not isinstance(probe, Mapping):
        return []
    errors = handler_errors(probe, path, _PROBE_HANDLERS)
    for timing in _TIMINGS:
        value = integer(probe.get(timing))
        if value is not None and value < 0:
            errors.append(invalid(path.child(timing), value, NEGATIVE_MESSAGE))
    grace = integer(probe.get("terminationGracePeriodSeconds"))
    if grace is not None and grace <= 0:
        errors.append(invalid(path.child("terminationGracePeriodSeconds"), grace, "must be greater than 0"))
    success = integer(probe.get("successThreshold"))
    if kind in ("liveness", "startup") and success not in (None, 0, 1):
        errors.append(invalid(path.child("successThreshold"), success, "must be 1"))
    if kind == "readiness" and probe.get("terminationGracePeriodSeconds") is not None:
        errors.append(invalid(path.child("terminationGracePeriodSeconds"), probe.get("terminationGracePeriodSeconds"),
                              "must not be set for readinessProbes"))
    return errors


#: ``DefaultTerminationGracePeriodSeconds``: what an unset pod grace period is defaulted to.
DEFAULT_GRACE_PERIOD = 30


def lifecycle_errors(lifecycle: Any, path: Path, grace: int | None = DEFAULT_GRACE_PERIOD) -> list[FieldError]:
    """``validateLifecycle``: each of ``postStart``/``preStop`` one valid handler; ``grace`` is the
    pod's termination grace period (None: not known, so a sleep is not judged)."""
    hooks = mapping(lifecycle)
    errors: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        if isinstance(hooks.get(hook), Mapping):
            errors += handler_errors(hooks[hook], path.child(hook), _LIFECYCLE_HANDLERS)
            errors += _sleep_errors(mapping(hooks[hook].get("sleep")), path.child(hook, "sleep"), grace)
    return errors


def _sleep_errors(sleep: Mapping[str, Any], path: Path, grace: int | None) -> list[FieldError]:
    """``validateSleepAction`` (zero seconds allowed: ``PodLifecycleSleepActionAllowZero``, on
    by default since Kubernetes 1.33), reported at ``sleep`` as the API server does."""
    seconds = integer(sleep.get("seconds"))
    if seconds is None or grace is None or 0 <= seconds <= grace:
        return []
    return [invalid(path, seconds, f"must be non-negative and less than terminationGracePeriodSeconds ({grace})")]


def handler_errors(handler: Mapping[str, Any], path: Path, kinds: tuple[str, ...]) -> list[FieldError]:
    """``validateHandler``: exactly one handler type, and that handler valid."""
    present = [kind for kind in kinds if handler.get(kind) is not None]
    if not present:
        return [required(path, "must specify a handler type")]
    errors = [forbidden(path.child(kind), "may not specify more than 1 handler type") for kind in present[1:]]
    return errors + _action_errors(present[0], mapping(handler[present[0]]), path.child(present[0]))


def _action_errors(kind: str, action: Mapping[str, Any], path: Path) -> list[FieldError]:
    if kind == "exec":
        return [] if items(action.get("command")) else [required(path.child("command"))]
    if kind == "httpGet":
        return _http_get_errors(action, path)
    if kind in ("tcpSocket", "grpc"):
        return port_num_or_name_errors(action.get("port"), path.child("port"))
    return []


def _http_get_errors(action: Mapping[str, Any], path: Path) -> list[FieldError]:
    """``validateHTTPGetAction`` (``path`` defaults to ``/`` and ``scheme`` to HTTP when absent)."""
    errors = port_num_or_name_errors(action.get("port"), path.child("port"))
    scheme = text(action.get("scheme"))
    if scheme and scheme not in _SCHEMES:
        errors.append(not_supported(path.child("scheme"), scheme, _SCHEMES))
    return errors
