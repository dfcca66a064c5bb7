"""One answer to "can this graph be deployed on this platform?", for every entry point.

``validate``, ``render``, ``preview``, ``diff`` and the Pulumi components all call
:func:`judge` (or :func:`check_deployable`), so none of them can call a graph valid that another
refuses. The verdict runs, in the API server's order and then the controller's:

1. what the API server checks on any object: ``metadata.name`` present and a DNS-1123 subdomain,
   namespace, labels, total annotation size, object size (:mod:`.validation.object_meta`);
2. admission: defaulting, schema and CEL, the operator's webhook (create, or update with ``old``);
3. in render mode, every refusal of the rendering pathway: rendered names and labels, backend
   detection, pathway and orchestrator availability, features that need cluster state
   (a :class:`~dynamo_pulumi.errors.RenderError` anywhere in :func:`~dynamo_pulumi.render.render_graph`),
   then the size limits of every rendered object.

The rendered result is kept on the verdict, so a caller that goes on to render does not render
twice. This module imports neither ``pulumi`` nor the renderer at import time: ``validate`` must
start fast, and a graph refused before rendering never loads it.
In operator mode (the CR itself is applied and the operator renders in the cluster) step 3's
refusals are warnings: the rendering is only the predicted expansion.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.v1beta1_helpers import ComponentDeploymentHelpers, GraphHelpers
from dynamo_pulumi.errors import (
    ErrorType,
    FieldError,
    GraphValidationError,
    InputError,
    RenderError,
    invalid,
)
from dynamo_pulumi.floor.kube_names import dns1123_label_problems
from dynamo_pulumi.floor.records import field, record, replace
from dynamo_pulumi.loading.documents import LoadedObject, locate
from dynamo_pulumi.model.deploy_mode import Mode
from dynamo_pulumi.model.platform_file import default_platform
from dynamo_pulumi.validation.object_meta import object_meta_errors, rendered_object_errors

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
    from dynamo_pulumi.platform import Platform
    from dynamo_pulumi.render import RenderResult
    from dynamo_pulumi.verdict.update import UpdateVerdict

    Graph = DynamoGraphDeployment | DynamoComponentDeployment
    Subject = LoadedObject | Graph

DEFAULT_NAMESPACE = "default"


@record
class Verdict:
    """Every reason the object cannot be deployed (empty when it can), warnings, what it renders
    to (deployable objects only; in operator mode the predicted expansion, possibly empty), and,
    for an update, the webhook rules OLD -> NEW breaks (``replacements``)."""

    kind: str
    name: str
    errors: list[FieldError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    rendered: RenderResult | None = None
    mode: Mode = "render"
    replacements: list[FieldError] = field(default_factory=list)

    @property
    def deployable(self) -> bool:
        return not self.errors

    def validate_errors(self) -> list[FieldError]:
        """What ``validate`` refuses: in operator mode also every update rule the webhook would
        refuse in place (Pulumi replaces the custom resource for them; ``validate`` answers for
        the webhook); in render mode those are planned replacements, not errors."""
        return [*self.replacements, *self.errors] if self.mode == "operator" else list(self.errors)

    def error(self) -> GraphValidationError:
        """The verdict as the one exception every entry point raises or prints."""
        return GraphValidationError(self.errors, self.kind, self.name, self.warnings)

    def raise_if_refused(self) -> Verdict:
        if self.errors:
            raise self.error()
        return self


def judge(
    subject: Subject,
    platform: Platform | None = None,
    namespace: str | None = None,
    *,
    old: Any = None,
    mode: str = "render",
    objects: Sequence[Mapping[str, Any]] = (),
    for_expansion: bool = False,
    client: str = "pulumi",
) -> Verdict:
    """The deployability verdict of one DGD or DCD (a loaded object keeps its v1alpha1 paths).

    ``namespace`` is the target namespace (default: the object's, else ``default``); ``old`` the
    object as deployed now, for an update (:mod:`dynamo_pulumi.verdict.update` decides
    per mode); ``objects`` the other Kubernetes objects beside the graph (DRA claim templates).
    In operator mode the rendering is the prediction, made from the custom resource as it is sent,
    and a rendering refusal is no error (the operator renders in the cluster): the prediction is
    empty and a warning says why. ``for_expansion`` is ``dynamo-pulumi render``'s question, "what
    would the operator create?": features only the operator can deploy are not refused, rendering
    refusals are (there is nothing to print without the rendering). ``client`` says who sends an
    update: ``"pulumi"`` leaves scaling-adapter replicas out, ``"kubectl"`` sends the file as written.
    """
    from dynamo_pulumi.model.deploy_mode import check_mode

    checked = check_mode(mode)
    loaded = subject if isinstance(subject, LoadedObject) else LoadedObject(object=subject)
    obj = loaded.object
    platform = platform or default_platform()
    kind, name = obj.kind, obj.name
    target = namespace or obj.metadata.namespace or DEFAULT_NAMESPACE
    errors = object_meta_errors(obj.to_wire()) + _target_namespace_errors(namespace)
    if errors:
        return _located(Verdict(kind, name, errors, mode=checked), loaded)
    admission = _admission(loaded, platform, target, old, "operator" if for_expansion else checked, client)
    errors = admission.errors + (_sent_errors(loaded) if checked == "operator" and not for_expansion else [])
    outcome = Verdict(kind, name, errors, admission.warnings, None, checked, admission.replacements)
    if not outcome.errors and isinstance(obj, (GraphHelpers, ComponentDeploymentHelpers)):
        outcome = _rendered(outcome, loaded, platform, target, objects, as_sent=checked == "operator",
                            refusals_warn=checked == "operator" and not for_expansion, stored=admission.stored)
    return _located(outcome, loaded)


def _sent_errors(loaded: LoadedObject) -> list[FieldError]:
    """What the API server refuses in the custom resource operator mode sends (v1beta1), beyond
    what admission of the file as written checks: at the paths the user wrote."""
    from dynamo_pulumi.model.deploy_mode import sent_type_errors

    errors = sent_type_errors(loaded.object)  # type: ignore[arg-type]
    return [loaded.path_map.map_error(e) for e in errors] if loaded.is_alpha else errors


def _located(verdict: Verdict, loaded: LoadedObject) -> Verdict:
    """Every error with the file position of its field (or nearest written parent), when the
    object was loaded from YAML: what editors and CI annotations point at."""
    return replace(verdict, errors=locate(loaded, verdict.errors), replacements=locate(loaded, verdict.replacements))


def _rendered(
    outcome: Verdict,
    loaded: LoadedObject,
    platform: Platform,
    namespace: str,
    objects: Sequence[Mapping[str, Any]],
    as_sent: bool,
    refusals_warn: bool,
    stored: Any = None,
) -> Verdict:
    """The admitted ``outcome`` with its rendering (``as_sent``: of the custom resource as operator
    mode sends it), or with rendering's refusals as errors (``refusals_warn``: as a warning and an
    empty prediction). ``stored``: the object as create admission defaulted it, rendered as it is
    (defaulting commutes with leaving out the metadata operator mode does not send)."""
    from dynamo_pulumi.model.deploy_mode import sent_in_operator_mode
    from dynamo_pulumi.render import RenderResult, render_graph  # late: a refused graph never pays for it

    graph = loaded.object if stored is None else stored
    if as_sent:
        graph, notes = sent_in_operator_mode(graph)  # type: ignore[arg-type]
        outcome = replace(outcome, warnings=[*outcome.warnings, *notes])
    try:
        rendered = render_graph(graph, platform, namespace, objects=objects, stored=stored is not None)  # type: ignore[arg-type]
    except RenderError as exc:
        if refusals_warn:
            note = f"the operator's expansion cannot be predicted offline ({exc}); preview shows none"
            return replace(outcome, warnings=[*outcome.warnings, note], rendered=RenderResult())
        return replace(outcome, errors=refusal_errors(exc, loaded))
    except InputError as exc:  # pragma: no cover - namespaces are checked above
        return replace(outcome, errors=[invalid("metadata.namespace", namespace, str(exc))])
    size_errors = [e for o in [*rendered.components, *rendered.objects] for e in rendered_object_errors(o)]
    errors = size_errors + _api_server_errors(loaded, rendered.objects, rendered.owners)
    return replace(outcome, errors=errors, rendered=None if errors else rendered)


def _api_server_errors(loaded: LoadedObject, objects: Sequence[Mapping[str, Any]], owners: Sequence[str | None]) -> list[FieldError]:
    """The API server's semantic rules over the rendered objects (:mod:`.validation.apiserver`),
    each at the user's field when the user wrote the value (at its v1alpha1 path for alpha input)."""
    from dynamo_pulumi.validation.apiserver.rendered import semantic_errors

    errors = semantic_errors(loaded.object.to_wire(), objects, owners)
    return [loaded.path_map.map_error(e) for e in errors] if loaded.is_alpha else errors


def check_deployable(
    subject: Subject,
    platform: Platform | None = None,
    namespace: str | None = None,
    *,
    old: Any = None,
    mode: str = "render",
    objects: Sequence[Mapping[str, Any]] = (),
    for_expansion: bool = False,
) -> Verdict:
    """:func:`judge`, raising :class:`GraphValidationError` with every error when refused."""
    return judge(
        subject, platform, namespace, old=old, mode=mode, objects=objects, for_expansion=for_expansion
    ).raise_if_refused()


def _target_namespace_errors(namespace: str | None) -> list[FieldError]:
    """A namespace given by the caller (``--namespace``, ``namespace=``) must be a DNS-1123 label."""
    if namespace is None:
        return []
    if not isinstance(namespace, str):  # a pulumi.Output (a Namespace resource's name), or any other value
        return [
            invalid(
                "metadata.namespace", f"<{type(namespace).__name__}>",
                "the target namespace must be a plain string: the rendered names, the Dynamo namespace and "
                "service discovery are computed from it while the program runs, and a pulumi.Output's value "
                "cannot be read at preview time; pass the name you gave the Namespace (and depends_on it)",
            )
        ]
    problems = dns1123_label_problems(namespace) if namespace else ["must not be empty"]
    return [invalid("metadata.namespace", namespace, f"target namespace {p}") for p in problems]


def _admission(
    loaded: LoadedObject, platform: Platform, namespace: str, old: Any, mode: Mode, client: str = "pulumi"
) -> UpdateVerdict:
    """Create or update admission in ``mode``, errors at the paths the user wrote (alpha paths
    for alpha); render mode adds the refusals of what needs the operator."""
    from dynamo_pulumi.verdict.update import create_verdict, update_verdict

    if old is None:
        return create_verdict(loaded, platform, mode, namespace)
    return update_verdict(old, loaded, platform, mode, namespace, client)  # type: ignore[arg-type]


def refusal_errors(exc: RenderError, loaded: LoadedObject) -> list[FieldError]:
    """A rendering refusal as field errors: one per refused name, else one at the refused field.

    A refusal names a field of the graph (``spec.components[1].multinode``), a rendered object
    (``gpt-oss-disagg-decode``) or nothing; only field paths are used as the error's path, the
    rest stays in the message.
    """
    from dynamo_pulumi.render.name_checks import RenderedNameError

    if isinstance(exc, RenderedNameError):
        return [
            _refused(p.source_path or "metadata.name", f"the API server would refuse {p.text}", loaded)
            for p in exc.problems
        ]
    message = str(exc)
    path = exc.path
    if _is_field_path(path):
        message = message.removeprefix(f"{path}: ")
    else:
        path = "spec"
    return [_refused(_indexed(path, loaded.object), f"cannot be rendered: {message}", loaded)]


_NAMED_COMPONENT = re.compile(r"^spec\.components\[([^\]]+)\]")


def _indexed(path: str, obj: Any) -> str:
    """``path`` with a component named by its name (``spec.components[VllmWorker]``, as the
    renderer knows a component) at the index the user wrote it (``spec.components[1]``), so
    the error is a kubectl-style path and its file position is the component's; a standalone
    DCD's own spec is ``spec``."""
    match = _NAMED_COMPONENT.match(path)
    if match is None or match.group(1).isdigit():
        return path
    rest = path[match.end():]
    if isinstance(obj, ComponentDeploymentHelpers):
        return f"spec{rest}"
    names = [c.name for c in obj.components] if isinstance(obj, GraphHelpers) else []
    if match.group(1) not in names:
        return path
    return f"spec.components[{names.index(match.group(1))}]{rest}"


def _is_field_path(path: str) -> bool:
    return path == "spec" or path.startswith(("spec.", "metadata.", "spec["))


def _refused(path: str, detail: str, loaded: LoadedObject) -> FieldError:
    error = FieldError(ErrorType.FORBIDDEN, path, detail)
    return loaded.path_map.map_error(error) if loaded.is_alpha else error


__all__ = ["Mode", "Verdict", "check_deployable", "judge", "refusal_errors"]
