"""Which connector a planner component scales through, read from its main container's command line.

What the Dynamo planner does (ai-dynamo/dynamo ``components/src/dynamo/planner/``, read at the
operator mirror's HEAD):

* ``python -m dynamo.planner --config <inline JSON or file path>``; the config's ``environment``
  is one of ``kubernetes``, ``virtual``, ``global-planner`` and **defaults to** ``kubernetes``
  (``config/defaults.py``: ``environment: Literal[...] = "kubernetes"``; ``PlannerConfig.from_config_arg``
  accepts a path or inline JSON);
* ``core/planner_factory.py``: ``kubernetes`` builds a ``KubernetesConnector``, which reads the
  DynamoGraphDeployment and patches its replicas or its scaling adapter through
  ``connectors/clients/kubernetes_api.py`` (``CustomObjectsApi`` on ``dynamographdeployments`` and
  ``dynamographdeploymentscalingadapters``); ``global-planner`` sends scale requests to a
  GlobalPlanner, which applies them to this graph's DGD with the same ``KubernetesAPI``
  (``global_planner/kubernetes_capacity_manager.py``); ``virtual`` only publishes decisions on
  the Dynamo runtime for an outside system;
* the GlobalPlanner itself (``python -m dynamo.global_planner``) patches the DGDs it manages
  unless started with ``--no-operation`` (``global_planner/argparse_config.py``);
* older images run ``planner_sla --environment=kubernetes`` (corpus v1alpha1 graphs).

So a planner "scales through the Kubernetes API" unless its command line says ``virtual`` (or
it is a GlobalPlanner with ``--no-operation``). A config file path cannot be read offline; the
planner's own default (``kubernetes``) is assumed for it, as for a missing ``--config``.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Sequence
from typing import Any

from dynamo_pulumi.api.pods import main_container
from dynamo_pulumi.floor.records import record

ENVIRONMENT_KUBERNETES = "kubernetes"
ENVIRONMENT_VIRTUAL = "virtual"
ENVIRONMENT_GLOBAL_PLANNER = "global-planner"
#: The planner's default connector (``SLAPlannerDefaults.environment``).
DEFAULT_ENVIRONMENT = ENVIRONMENT_KUBERNETES
GLOBAL_PLANNER_MODULE = "dynamo.global_planner"
NO_OPERATION_FLAG = "--no-operation"


@record(eq=False, repr=False)  # never compared or printed: fewer methods to build at start-up
class PlannerConnector:
    """How one planner component changes the graph's scale."""

    environment: str
    #: Where the answer came from, for messages ("--config JSON", "default", ...).
    source: str
    global_planner: bool = False

    @property
    def uses_kubernetes_api(self) -> bool:
        """Does it read and patch the DGD (or its scaling adapters) through the API server?"""
        if self.global_planner:
            return self.environment != "no-operation"
        return self.environment in (ENVIRONMENT_KUBERNETES, ENVIRONMENT_GLOBAL_PLANNER)


def command_line(template: dict[str, Any] | None) -> list[str]:
    """The main container's command and args as tokens; a shell string (``sh -c "..."``) is split
    the way the shell would, so flags inside it count. Non-string leaves are skipped."""
    container = main_container(template) or {}
    tokens: list[str] = []
    for key in ("command", "args"):
        items = container.get(key)
        if isinstance(items, list):
            tokens.extend(item for item in items if isinstance(item, str))
    return _split_shell_strings(tokens)


def _split_shell_strings(tokens: Iterable[str]) -> list[str]:
    out: list[str] = []
    for token in tokens:
        stripped = token.strip()
        if " " in stripped and not stripped.startswith(("-", "{")) and ("dynamo." in token or "--" in token):
            try:
                out.extend(shlex.split(token))
                continue
            except ValueError:
                pass
        out.append(token)
    return out


def _flag_value(tokens: Sequence[str], flag: str) -> str | None:
    """The value of ``flag`` (``--flag value`` or ``--flag=value``); the last one wins, as argparse."""
    value: str | None = None
    for i, token in enumerate(tokens):
        if token == flag and i + 1 < len(tokens):
            value = tokens[i + 1]
        elif token.startswith(flag + "="):
            value = token[len(flag) + 1 :]
    return value


def _from_config(config: str) -> tuple[str, str]:
    """The environment an inline-JSON ``--config`` names; a file path keeps the default."""
    try:
        data = json.loads(config)
    except json.JSONDecodeError:
        return DEFAULT_ENVIRONMENT, "--config file (not readable offline; the planner's default)"
    if isinstance(data, dict) and isinstance(data.get("environment"), str):
        return data["environment"], "--config JSON"
    return DEFAULT_ENVIRONMENT, "--config JSON without environment (the planner's default)"


def planner_connector(template: dict[str, Any] | None) -> PlannerConnector:
    """The connector of the planner whose pod template this is."""
    tokens = command_line(template)
    if GLOBAL_PLANNER_MODULE in tokens:
        mode = "no-operation" if NO_OPERATION_FLAG in tokens else ENVIRONMENT_KUBERNETES
        return PlannerConnector(mode, "GlobalPlanner command line", global_planner=True)
    config = _flag_value(tokens, "--config")
    if config is not None:
        environment, source = _from_config(config)
        return PlannerConnector(environment, source)
    environment = _flag_value(tokens, "--environment")
    if environment is not None:
        return PlannerConnector(environment, "--environment")
    return PlannerConnector(DEFAULT_ENVIRONMENT, "no --config (the planner's default)")
