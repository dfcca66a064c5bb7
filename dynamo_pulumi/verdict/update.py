"""One answer per mode to "can OLD become NEW?", shared by ``validate --old`` and ``diff``.

* **operator** mode updates the DGD/DCD custom resource, so the operator's update webhook decides.
  What it refuses is what ``validate --old`` reports (exactly the webhook's errors). When a fresh
  create of NEW would be admitted, Pulumi replaces the custom resource instead (the immutable-
  identity trigger, :mod:`.immutable_identity`), and ``diff`` shows the replacement with the
  webhook's words as the reason. When NEW could not be created either, nothing can apply it.
* **render** mode never sends the custom resource, so the webhook's update rules do not apply:
  NEW only has to pass create admission and the render-mode refusals
  (:func:`dynamo_pulumi.model.deploy_mode.operator_only_errors`); what the webhook would have refused is
  reported as a planned replacement (the rendered objects it touches are replaced or updated).

Who sends NEW matters for one rule: replicas of a component with a ``scalingAdapter`` belong to
the adapter, and the webhook refuses a direct change of them. ``client="kubectl"`` (``validate
--old``: the file applied as written, as ``kubectl apply`` or Argo sends it) judges those replicas
as written; ``client="pulumi"`` (``diff``, the components) never sends them (``ignore_changes``),
so they are compared as sent: OLD's value, and the update stays allowed.

Operator mode has a second source of replacements: the custom resource's ``replacement_trigger``
(:mod:`.immutable_identity`) also changes when an "immutable once set" value is set where none
was, which the webhook accepts. Pulumi replaces the DGD then too, so the verdict lists those rules
(``trigger_rules``): ``diff`` shows the replacement, ``validate --old`` a warning (not an error:
the webhook admits the update).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from dynamo_pulumi.api.v1beta1_helpers import ComponentDeploymentHelpers, GraphHelpers
from dynamo_pulumi.errors import FieldError
from dynamo_pulumi.floor.records import field, record, replace
from dynamo_pulumi.loading.documents import LoadedObject, admit_loaded, alpha_rule_path
from dynamo_pulumi.model.deploy_mode import (
    RESTART_IN_RENDER_MODE,
    Mode,
    check_mode,
    operator_only_errors,
    render_mode_notes,
)
from dynamo_pulumi.validation.admission import admit_update

if TYPE_CHECKING:
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment
    from dynamo_pulumi.platform import Platform

    Graph = DynamoGraphDeployment | DynamoComponentDeployment




@record
class UpdateVerdict:
    """What happens to OLD -> NEW in one mode."""

    mode: Mode
    #: NEW cannot be applied at all (the command fails).
    errors: list[FieldError] = field(default_factory=list)
    #: The webhook's update rules OLD -> NEW breaks: operator mode replaces the custom resource
    #: for them, render mode reports them as planned replacements.
    replacements: list[FieldError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: Operator mode: identity rules whose change replaces the custom resource through its
    #: trigger although the webhook accepts the update (a value set where none was).
    trigger_rules: list[str] = field(default_factory=list)
    #: NEW as create admission stored it (defaulted): what its rendering (the fresh-install
    #: result) starts from, so it is not defaulted again. None when admission stopped before.
    stored: Any = None

    @property
    def replaces_custom_resource(self) -> bool:
        """Operator mode: is the DGD/DCD deleted and created again?"""
        return self.mode == "operator" and bool(self.replacements or self.trigger_rules) and not self.errors

    def validate_errors(self) -> list[FieldError]:
        """What ``validate --old`` refuses: in operator mode exactly the webhook's errors."""
        if self.mode == "operator":
            return [*self.replacements, *self.errors]
        return list(self.errors)


def as_sent(old: Graph, new: Graph) -> Graph:
    """NEW as Pulumi sends it: scaling-adapter replicas keep OLD's value (``ignore_changes``)."""
    if isinstance(new, GraphHelpers) and isinstance(old, GraphHelpers) and new.spec.components:
        before = {c.name: c.replicas for c in old.components}
        components = [
            c.model_copy(update={"replicas": before[c.name]}) if c.scaling_adapter is not None and c.name in before else c
            for c in new.components
        ]
        return new.model_copy(update={"spec": new.spec.model_copy(update={"components": components})})
    if (
        isinstance(new, ComponentDeploymentHelpers)
        and isinstance(old, ComponentDeploymentHelpers)
        and new.spec.scaling_adapter is not None
    ):
        return new.model_copy(update={"spec": new.spec.model_copy(update={"replicas": old.spec.replicas})})
    return new


#: Who sends the update: Pulumi (adapter-owned replicas left out) or kubectl (the file as written).
Client = Literal["pulumi", "kubectl"]
CLIENTS: tuple[Client, ...] = ("pulumi", "kubectl")


def update_verdict(
    old: Graph, new: LoadedObject, platform: Platform, mode: str, namespace: str | None = None,
    client: Client = "pulumi",
) -> UpdateVerdict:
    """The verdict on replacing ``old`` (as applied before) with the loaded ``new``, sent by ``client``."""
    checked = check_mode(mode)
    if client not in CLIENTS:
        raise ValueError(f"client must be one of {', '.join(CLIENTS)}, not {client!r}")
    sent = as_sent(old, new.object) if client == "pulumi" else new.object  # type: ignore[arg-type]
    admitted = admit_update(old, sent, platform, source_api_version=new.source_api_version, namespace=namespace)
    update = admitted.findings
    update_errors = _as_the_webhook_reports(update.errors, new)
    stored, create = admit_loaded(new, platform, namespace)  # already at the paths the user wrote
    if checked == "render":
        refusals = _at_written_paths(operator_only_errors(new.object), new)
        return UpdateVerdict(checked, [*_render_mode_advice(create.errors), *refusals], update_errors,
                             [*create.warnings, *render_mode_notes(new.object)], stored=stored)
    if not update_errors:
        # The identity reads no replicas, so NEW as sent (adapter replicas at OLD's) and NEW as
        # written have one identity: the one of NEW as create admission stored it.
        rules = trigger_only_rules(old, new.object, platform, stored, admitted.old_created)
        return UpdateVerdict(checked, [], [], [*update.warnings, *map(trigger_warning, rules)], rules, stored)
    if create.errors:  # a replacement would be refused too: the update cannot be applied
        return UpdateVerdict(checked, update_errors, [], update.warnings, stored=stored)
    return UpdateVerdict(checked, [], update_errors, update.warnings, stored=stored)


def trigger_only_rules(
    old: Graph, sent: Graph, platform: Platform, sent_stored: Graph | None = None, old_stored: Graph | None = None
) -> list[str]:
    """The identity rules OLD -> NEW changes (what the replacement trigger sees); called when the
    webhook accepted the update, so each is an "immutable once set" value newly set.
    ``sent_stored``, ``old_stored``: ``sent`` and ``old`` as create admission already defaulted them."""
    from dynamo_pulumi.validation.immutable_identity import changed_rules, identity_of

    if old.kind != sent.kind:
        return []
    return changed_rules(identity_of(old, platform, old_stored), identity_of(sent, platform, sent_stored))


def trigger_warning(rule: str) -> str:
    return (
        f"Pulumi replaces the custom resource (delete, then create): its replacement trigger's rule "
        f"{rule!r} changes; the operator's webhook would accept this in place, but the trigger cannot "
        "tell a value set where none was from a changed one"
    )


def create_verdict(new: LoadedObject, platform: Platform, mode: str, namespace: str | None = None) -> UpdateVerdict:
    """No OLD: create admission, plus the render-mode refusals in render mode."""
    checked = check_mode(mode)
    stored, create = admit_loaded(new, platform, namespace)
    if checked != "render":
        return UpdateVerdict(checked, list(create.errors), [], create.warnings, stored=stored)
    refusals = _at_written_paths(operator_only_errors(new.object), new)
    return UpdateVerdict(checked, [*_render_mode_advice(create.errors), *refusals], [],
                         [*create.warnings, *render_mode_notes(new.object)], stored=stored)


def _render_mode_advice(errors: list[FieldError]) -> list[FieldError]:
    """Create admission's errors as render mode sees them: a restart, refused on create by CEL,
    can never be applied in render mode (every apply is a create), so it names operator mode."""
    from dynamo_pulumi.validation.cel import MSG_RESTART_ON_CREATE

    return [replace(e, fix=RESTART_IN_RENDER_MODE) if e.detail == MSG_RESTART_ON_CREATE and not e.fix else e
            for e in errors]


def _as_the_webhook_reports(errors: list[FieldError], loaded: LoadedObject) -> list[FieldError]:
    """Update errors of a v1alpha1 request where the webhook reports them: it judges the converted
    v1beta1 object, so at v1beta1 paths (``spec.components[0]...``), except the runtime-version
    and EPP rules, which it reports at the alpha paths (:func:`~dynamo_pulumi.loading.documents.alpha_rule_path`,
    as on create). The file position still points at the alpha field (``locate``)."""
    if not loaded.is_alpha:
        return list(errors)
    return [replace(e, path=alpha_rule_path(loaded, e.path)) for e in errors]


def _at_written_paths(errors: list[FieldError], loaded: LoadedObject) -> list[FieldError]:
    """Errors found on the v1beta1 model, at the paths the user wrote (v1alpha1 files)."""
    return [loaded.path_map.map_error(e) for e in errors] if loaded.is_alpha else list(errors)
