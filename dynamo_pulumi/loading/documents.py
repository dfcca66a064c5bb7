"""Load Dynamo objects from a dict, a list of dicts, YAML text or a YAML file.

This is where user input enters the package, so every way it can be wrong ends here as a
clear :class:`InputError` (unreadable file, bad YAML, a document that is not an object, no
kind) or :class:`GraphValidationError` (schema violations), never a traceback.

``nvidia.com/v1alpha1`` objects are checked against the alpha schema at alpha paths, then
converted to v1beta1 (the API server's order); each loaded object remembers its source
apiVersion and the map from beta paths back to alpha paths, so later errors can be reported
where the user wrote the field. Documents of other kinds (ConfigMaps, PVCs, ...) are returned
beside the graph, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dynamo_pulumi.api.kinds import API_GROUP, API_VERSION, DCD_KIND, DGD_KIND, KIND_NAMES
from dynamo_pulumi.api.path_map import PathMap
from dynamo_pulumi.api.wire_errors import openapi_type
from dynamo_pulumi.errors import FieldError, Findings, GraphValidationError, InputError
from dynamo_pulumi.floor.constants import DYNAMO_API_VERSION_V1ALPHA1 as ALPHA_API_VERSION
from dynamo_pulumi.floor.duplicates import duplicate_errors
from dynamo_pulumi.floor.records import field, record, replace
from dynamo_pulumi.floor.sources import Source, read_raw_documents

# Re-exported: reading inputs moved to dynamo_pulumi.floor.sources, callers of loading keep working.
from dynamo_pulumi.floor.sources import SourceText as SourceText
from dynamo_pulumi.floor.sources import parse_yaml as parse_yaml
from dynamo_pulumi.floor.sources import read_documents as read_documents
from dynamo_pulumi.floor.sources import read_text_file as read_text_file
from dynamo_pulumi.floor.yaml_source import DocumentPositions

if TYPE_CHECKING:  # the v1alpha1 models and the conversion are imported for alpha input only
    from dynamo_pulumi.api.v1alpha1 import AlphaObject
    from dynamo_pulumi.api.v1alpha1 import DynamoComponentDeploymentSpec as AlphaDCDSpec
    from dynamo_pulumi.api.v1alpha1 import DynamoGraphDeploymentSpec as AlphaDGDSpec
    from dynamo_pulumi.api.v1beta1 import DynamoComponentDeployment, DynamoGraphDeployment, DynamoObject

GRAPH_KINDS = (DGD_KIND, DCD_KIND)


@record
class LoadedObject:
    """One Dynamo object with where it came from."""

    object: DynamoObject
    #: The apiVersion the user wrote (``nvidia.com/v1alpha1`` objects were converted).
    source_api_version: str = API_VERSION
    #: beta wire path -> alpha wire path, for alpha objects (empty for v1beta1).
    path_map: PathMap = field(default_factory=PathMap)
    #: Alpha-only data that has no v1beta1 field (pvcs, ingress, ...), for alpha objects.
    alpha_extras: AlphaDGDSpec | AlphaDCDSpec | None = None
    #: The alpha object as written (schema-checked), for alpha input.
    alpha_object: AlphaObject | None = None
    #: Position of the document in the input (0-based, empty documents not counted).
    document: int = 0
    source: str = ""
    #: Where each field was written, when the object was loaded from YAML text.
    positions: DocumentPositions | None = field(default=None, compare=False, repr=False)

    @property
    def is_alpha(self) -> bool:
        return self.source_api_version == ALPHA_API_VERSION


@record
class LoadResult:
    """Everything in the input: Dynamo objects (as v1beta1) and the other documents."""

    loaded: list[LoadedObject]
    others: list[dict[str, Any]]
    source: str = ""

    @property
    def objects(self) -> list[DynamoObject]:
        return [lo.object for lo in self.loaded]

    @property
    def graphs(self) -> list[LoadedObject]:
        """The DGDs and DCDs (not the scaling adapters)."""
        return [lo for lo in self.loaded if lo.object.kind in GRAPH_KINDS]


def _doc_source(where: str, index: int, total: int) -> str:
    if total <= 1:
        return where
    label = f"document {index + 1}"
    return f"{where} ({label})" if where else label


def _check_header(doc: Any, source: str) -> tuple[str, str]:
    """apiVersion and kind of a document, or an InputError saying what is missing."""
    if not isinstance(doc, Mapping):
        raise InputError(f"expected a mapping (a Kubernetes object), got {openapi_type(doc)}", source)
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(api_version, str) or not api_version:
        from dynamo_pulumi.model.input_hints import helm_values_hint, platform_given_as_graph_hint

        hint = helm_values_hint(doc) or platform_given_as_graph_hint(doc)
        raise InputError(f"object has no apiVersion; {hint}" if hint else "object has no apiVersion", source)
    if not isinstance(kind, str) or not kind:
        raise InputError("object has no kind", source)
    return api_version, kind


#: The other nvidia.com kinds the operator serves (its CRDs, ``../shared/conformance/crds``), with
#: their served versions. They sit beside graphs in published manifests (a DynamoModel beside the
#: DGD that serves its LoRA); their own controllers judge them, rendering never reads them, so they
#: are passed through like any companion document, and ``validate`` says it did not check them.
COMPANION_KINDS: dict[str, tuple[str, ...]] = {
    "DynamoModel": ("v1alpha1",),
    "DynamoGraphDeploymentRequest": ("v1alpha1", "v1beta1"),
    "DynamoCheckpoint": ("v1alpha1",),
    "DynamoWorkerMetadata": ("v1alpha1",),
}


def is_companion(doc: Mapping[str, Any]) -> bool:
    """Is ``doc`` one of :data:`COMPANION_KINDS` (any version)?"""
    api_version = doc.get("apiVersion")
    return (isinstance(api_version, str) and api_version.rpartition("/")[0] == API_GROUP
            and doc.get("kind") in COMPANION_KINDS)


def companion_note(doc: Mapping[str, Any]) -> str:
    """What ``validate`` says of a companion document, and the Pulumi components of one beside a graph."""
    return (f'{doc.get("kind")} "{object_name_of(doc)}" is not checked here: the operator serves it and '
            "its own controller judges it; render leaves it out, and the Pulumi components do not "
            "deploy it (register it yourself, e.g. as a pulumi_kubernetes CustomResource)")


def object_name_of(doc: Mapping[str, Any]) -> str:
    metadata = doc.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return name if isinstance(name, str) else ""


def _check_companion_version(api_version: str, kind: str, source: str) -> None:
    served = COMPANION_KINDS[kind]
    if api_version.rpartition("/")[2] not in served:
        supported = ", ".join(f"{API_GROUP}/{v}" for v in served)
        raise InputError(f"unsupported apiVersion {api_version!r} for {kind} (served: {supported})", source)


def _is_dynamo(api_version: str, kind: str, source: str) -> bool:
    """True for the kinds we load; other groups and the companion kinds are passed through;
    unknown nvidia.com kinds fail."""
    group = api_version.rpartition("/")[0]
    if group != API_GROUP:
        return False
    if kind in COMPANION_KINDS:
        _check_companion_version(api_version, kind, source)
        return False
    if kind not in KIND_NAMES:
        raise InputError(
            f"unknown kind {kind!r} in {api_version} (supported: {', '.join([*KIND_NAMES, *COMPANION_KINDS])})", source
        )
    if api_version not in (API_VERSION, ALPHA_API_VERSION):
        raise InputError(
            f"unsupported apiVersion {api_version!r} for {kind} "
            f"(supported: {API_VERSION}, {ALPHA_API_VERSION})",
            source,
        )
    return True


def load_alpha(doc: Mapping[str, Any], index: int = 0, source: str = "") -> LoadedObject:
    """An alpha object as the API server takes it: alpha schema and CEL, then conversion."""
    from dynamo_pulumi.api.conversion import convert, parse_alpha  # late: keeps v1beta1 loading light
    from dynamo_pulumi.validation.alpha import alpha_schema_errors

    src = parse_alpha(doc)
    errors = alpha_schema_errors(src, on_create=False)
    if errors:
        raise GraphValidationError(errors, kind=src.kind, name=src.name)
    converted = convert(src)
    return LoadedObject(
        object=converted.object,
        source_api_version=ALPHA_API_VERSION,
        path_map=converted.path_map,
        alpha_extras=converted.preserved,
        alpha_object=src,
        document=index,
        source=source,
    )


def _load_one(doc: Mapping[str, Any], api_version: str, index: int, source: str, twins: bool) -> LoadedObject:
    if api_version == ALPHA_API_VERSION:
        return load_alpha(doc, index=index, source=source)
    twin = _twin(doc) if twins else None
    if twin is not None:
        return LoadedObject(object=twin, document=index, source=source)
    from dynamo_pulumi.api.parse import parse_object  # late: pydantic, for all but a certain twin

    try:
        return LoadedObject(object=parse_object(doc, source), document=index, source=source)
    except GraphValidationError as exc:
        from dynamo_pulumi.validation.cel import replica_cel_beside_schema  # late: only for refused input

        exc.errors = [*exc.errors, *replica_cel_beside_schema(doc, exc.errors)]
        raise


def _twin(doc: Mapping[str, Any]) -> Any:
    """The pydantic-free twin of a v1beta1 object that the schema (the models' and the embedded
    pod templates') admits, or None: then the model is built, and reports any error."""
    from dynamo_pulumi.api.pod_schema import object_errors
    from dynamo_pulumi.model.twin import KIND_MODELS, from_wire

    model = KIND_MODELS.get(str(doc.get("kind")))
    twin = from_wire(model, doc) if model is not None else None
    return twin if twin is not None and not object_errors(doc) else None


def _load_document(
    doc: Any, positions: DocumentPositions | None, index: int, doc_source: str, twins: bool = False
) -> LoadedObject | dict[str, Any]:
    """One raw document as a LoadedObject (a Dynamo kind) or as itself (any other kind).

    Schema errors found while loading carry the position of their field."""
    api_version, kind = _check_header(doc, doc_source)
    if not _is_dynamo(api_version, kind, doc_source):
        _check_beside_metadata(doc, kind, positions)
        return dict(doc)
    try:
        loaded = _load_one(doc, api_version, index, doc_source, twins)
    except GraphValidationError as exc:
        if positions is not None:
            exc.errors = [_located(e, positions) for e in exc.errors]
        raise
    return replace(loaded, positions=positions) if positions is not None else loaded


def _check_beside_metadata(doc: Mapping[str, Any], kind: str, positions: DocumentPositions | None) -> None:
    """An object given beside the graph (a ResourceClaimTemplate, a ConfigMap) is held to strict
    ObjectMeta too: ``metadata.lables`` would silently drop its labels."""
    from dynamo_pulumi.api.parse import object_name, unknown_field
    from dynamo_pulumi.api.suggest import declared_at
    from dynamo_pulumi.api.v1beta1 import ObjectMeta
    from dynamo_pulumi.floor.suggest import nearest

    metadata = doc.get("metadata")
    if not isinstance(metadata, Mapping):
        return
    declared = declared_at(ObjectMeta, [])
    unknown = [
        unknown_field(f"metadata.{key}", nearest(str(key), declared)) for key in metadata if key not in declared
    ]
    if unknown:
        located = [_located(e, positions) for e in unknown] if positions is not None else unknown
        raise GraphValidationError(located, kind=kind, name=object_name(doc))


def load_documents(source: Source) -> LoadResult:
    """Load every document of ``source`` (dict, list of dicts, YAML text, or file path)."""
    docs, where = read_raw_documents(source)
    duplicates = duplicate_errors(docs)
    if duplicates:
        raise duplicates[min(duplicates)]
    loaded: list[LoadedObject] = []
    others: list[dict[str, Any]] = []
    for i, (doc, positions) in enumerate(docs):
        item = _load_document(doc, positions, i, _doc_source(where, i, len(docs)))
        if isinstance(item, LoadedObject):
            loaded.append(item)
        else:
            others.append(item)
    return LoadResult(loaded=loaded, others=others, source=where)


@record
class DocumentOutcome:
    """One document of a file loaded on its own: a Dynamo object, another kind, or the error
    that stopped it (so one bad document does not hide the others)."""

    index: int
    label: str
    loaded: LoadedObject | None = None
    error: InputError | GraphValidationError | None = None
    #: Another kind (a ResourceClaimTemplate beside the graph): what rendering may read.
    other: dict[str, Any] | None = None


def load_each(source: Source, *, twins: bool = False) -> Iterator[DocumentOutcome]:
    """Every document of ``source``, loaded one by one. Reading or YAML errors of the whole
    input raise InputError before the first document. ``twins``: a valid v1beta1 object is
    loaded as its pydantic-free twin (:mod:`dynamo_pulumi.model.twin`), for the CLI's ``validate``
    and ``render``, whose objects never reach a user's program."""
    docs, where = read_raw_documents(source)
    duplicates = duplicate_errors(docs)
    for i, (doc, positions) in enumerate(docs):
        label = _doc_source(where, i, len(docs))
        if i in duplicates:
            yield DocumentOutcome(i, label, error=duplicates[i])
            continue
        try:
            item = _load_document(doc, positions, i, label, twins)
        except (InputError, GraphValidationError) as exc:
            yield DocumentOutcome(i, label, error=exc)
        else:
            if isinstance(item, LoadedObject):
                yield DocumentOutcome(i, label, loaded=item)
            else:
                yield DocumentOutcome(i, label, other=item)


def load_graph(source: Source) -> DynamoGraphDeployment | DynamoComponentDeployment:
    """The one DGD or DCD in ``source`` (companion documents are allowed and ignored)."""
    return load_graph_entry(source).object  # type: ignore[return-value]


def load_graph_entry(source: Source) -> LoadedObject:
    """Like :func:`load_graph`, with the source apiVersion and alpha path map. A
    :class:`SourceText` naming a ``document`` picks that graph of a file holding several (the
    whole text is still read, so positions and the documents beside it stay as written)."""
    result = load_documents(source)
    graphs = result.graphs
    if isinstance(source, SourceText) and source.document is not None:
        graphs = [g for g in graphs if g.document == source.document]
    if len(graphs) != 1:
        found = ", ".join(f'{g.object.kind} "{g.object.name}"' for g in graphs) or "none"
        raise InputError(
            f"expected exactly one {DGD_KIND} or {DCD_KIND}, found {len(graphs)} ({found})",
            result.source,
        )
    return graphs[0]


# --- validation of loaded objects -------------------------------------------------------------

#: Beta paths of the runtime-version and EPP rules, which the operator checks at alpha paths
#: for a v1alpha1 request (group 1: the component prefix; group 2: the rule's field).
_RUNTIME_RULE_PATH = re.compile(
    r"^(spec(?:\.components\[\d+\])?)\.(runtimeVersionOverride|eppConfig(?:\..*)?|"
    r"podTemplate\.spec\.containers(?:\[\d+\]\.image)?|"
    r"podTemplate\.spec\.initContainers\[\d+\]\.image)$"
)
_ALPHA_MAIN_IMAGE = "extraPodSpec.mainContainer.image"


def alpha_rule_path(loaded: LoadedObject, path: str) -> str:
    """Where the operator reports a runtime-version/EPP error of an alpha request."""
    match = _RUNTIME_RULE_PATH.match(path)
    if match is None:
        return path
    if match.group(2).startswith("podTemplate.spec.containers"):
        return f"{loaded.path_map.alpha_path(match.group(1))}.{_ALPHA_MAIN_IMAGE}"
    return loaded.path_map.alpha_path(path)


def _located(error: FieldError, positions: DocumentPositions, alpha_path: str | None = None) -> FieldError:
    if error.position is not None:
        return error
    paths = (error.path,) if alpha_path is None else (error.path, alpha_path)
    return replace(error, position=positions.position_of(*paths))


def locate(loaded: LoadedObject, errors: Sequence[FieldError]) -> list[FieldError]:
    """``errors`` with the file position of each field (or of its nearest written parent); a
    beta path of an alpha object is looked up where the conversion took it from."""
    positions = loaded.positions
    if positions is None:
        return list(errors)
    return [
        _located(e, positions, loaded.path_map.alpha_path(e.path) if loaded.is_alpha else None) for e in errors
    ]


def _namespace(loaded: LoadedObject, namespace: str | None) -> str:
    return namespace or loaded.object.metadata.namespace or "default"


def validate_loaded(loaded: LoadedObject, platform: Any = None, namespace: str | None = None) -> Findings:
    """Create admission of one loaded object, in the API server's order (api-and-validation.md
    section 0 and 4.6): what :func:`admit_loaded` found.

    A v1beta1 object: :func:`dynamo_pulumi.validation.validate` (the v1beta1 CEL rules, the
    webhook, then the compatibility pass over alpha data it carries in its conversion
    annotation; nothing else is added here, so nothing is reported twice). A
    v1alpha1 object passed its alpha schema at load; here its create-only CEL rule, then the
    v1beta1 webhook on the converted object with runtime-version/EPP errors at alpha paths,
    then the compatibility pass. Errors of an object loaded from text carry their file position.
    """
    return admit_loaded(loaded, platform, namespace)[1]


def admit_loaded(loaded: LoadedObject, platform: Any = None, namespace: str | None = None) -> tuple[Any, Findings]:
    """Create admission of one loaded object (:func:`validate_loaded`) and the object as the API
    server would store it: defaulted once, here, so a rendering of it starts from this object
    instead of defaulting it again (None when the alpha CEL stage refused it before defaulting)."""
    stored, findings = _create_admission(loaded, platform, namespace)
    findings.errors = locate(loaded, findings.errors)
    return stored, findings


def _create_admission(loaded: LoadedObject, platform: Any, namespace: str | None) -> tuple[Any, Findings]:
    """One admission of the object: a v1alpha1 DGD or DCD meets the alpha CRD's schema and CEL
    rules on its alpha form first, and the compatibility pass after the webhook's rules, which
    judge its conversion (errors at the paths the user wrote)."""
    from dynamo_pulumi.validation import admit

    ns = _namespace(loaded, namespace)
    view = _alpha_workload(loaded)
    if view is not None:
        from dynamo_pulumi.validation.alpha import alpha_schema_errors

        cel = alpha_schema_errors(view, on_create=True)
        if cel:
            return None, Findings(errors=cel)
    stored, found = admit(loaded.object, platform, namespace=ns, alpha_checked=view is not None)
    if view is None:
        return stored, found
    from dynamo_pulumi.validation.alpha import alpha_compat_findings

    findings = Findings(
        errors=[replace(e, path=alpha_rule_path(loaded, e.path)) for e in found.errors],
        warnings=list(found.warnings),
    )
    findings.extend(alpha_compat_findings(view, ns, alpha_source=True))
    return stored, findings


def _alpha_workload(loaded: LoadedObject) -> Any:
    """The alpha form of a v1alpha1 DGD or DCD (None for any other object)."""
    view = loaded.alpha_object
    if view is None:
        return None
    from dynamo_pulumi.api.v1alpha1 import DynamoComponentDeployment as AlphaDCD
    from dynamo_pulumi.api.v1alpha1 import DynamoGraphDeployment as AlphaDGD

    return view if isinstance(view, (AlphaDGD, AlphaDCD)) else None


def validate_source(
    source: Source, platform: Any = None, namespace: str | None = None
) -> list[tuple[LoadedObject, Findings]]:
    """Load ``source`` and validate every Dynamo object in it (see :func:`validate_loaded`)."""
    return [(lo, validate_loaded(lo, platform, namespace)) for lo in load_documents(source).loaded]


def check_loaded(loaded: LoadedObject, platform: Any = None, namespace: str | None = None) -> Findings:
    """:func:`validate_loaded`, raising GraphValidationError when there are errors."""
    findings = validate_loaded(loaded, platform, namespace)
    if findings.errors:
        raise GraphValidationError(
            findings.errors, kind=loaded.object.kind, name=loaded.object.name, warnings=findings.warnings
        )
    return findings
