"""Errors a cluster connection or a wait can end in, each one line a user can act on."""

from __future__ import annotations

from dynamo_pulumi.errors import DynamoPulumiError


class ClusterError(DynamoPulumiError):
    """The cluster cannot be reached or refused us: bad kubeconfig, unreachable API server,
    a CRD that is not installed, RBAC forbidding a read. Never retried into a timeout."""


class WaitTimeout(DynamoPulumiError):
    """The graph did not become ready before the deadline; the message lists every unready component."""


class WaitFailed(DynamoPulumiError):
    """The graph can no longer become ready without a change (the operator reports ``failed``)."""


class WaitCancelled(DynamoPulumiError):
    """The wait was cancelled before it ended (the engine's Cancel, a dropped call, a signal);
    the message says which, and that nothing failed on the cluster's side."""
