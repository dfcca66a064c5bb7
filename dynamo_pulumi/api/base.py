"""The base every API model shares: camelCase on the wire, snake_case in Python, exact round trip.

Models load what users write (``model_validate`` on the wire dict) and dump exactly what was
given (``to_wire``: only the fields that were set, by their wire names, no invented defaults).
Unknown fields are refused, like ``kubectl``'s strict field validation; Kubernetes types the
rules do not need (PodTemplateSpec, EnvVar, ...) are kept as faithful mappings elsewhere, so
their unknown fields survive untouched.

Built in Python (``ComponentSpec(replicas=...)``), a model takes what a dict spec takes: a leaf
field marked ``In[...]`` holds a ``pulumi.Output`` (or another awaitable Input) as given, for the
Pulumi layer to park and check exactly as it checks the same Output in a dict; and a refused
keyword is a :class:`~dynamo_pulumi.errors.ModelError` (a ``pulumi.RunError`` in a Pulumi
program) with the field path and the nearest declared name, never pydantic's own error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapSerializer,
    WrapValidator,
)
from pydantic.alias_generators import to_camel

from dynamo_pulumi.api.pulumi_args import plain
from dynamo_pulumi.api.v1beta1_helpers import ObjectMetaHelpers
from dynamo_pulumi.errors import ModelError, for_pulumi_if_running
from dynamo_pulumi.floor.placeholders import is_deploy_time_value

# Kubernetes-shaped leaf types (strict: "3" is not an integer, 1 is not a string).
Int32 = Annotated[StrictInt, Field(ge=-(2**31), le=2**31 - 1)]
NonNegInt32 = Annotated[StrictInt, Field(ge=0, le=2**31 - 1)]
Int64 = StrictInt
Str = StrictStr
Bool = StrictBool
#: resource.Quantity: a string ("8Gi") or a plain number on the wire.
Quantity = StrictStr | StrictInt | StrictFloat
#: An arbitrary JSON object kept as given (preserve-unknown-fields in the CRD).
JSONObject = dict[str, Any]
#: A core/v1 PodTemplateSpec kept as the user's mapping (see :mod:`dynamo_pulumi.api.pods`); a
#: ``pulumi_kubernetes.core.v1.PodTemplateSpecArgs`` is accepted and stored as its mapping. Type
#: checkers see both (the ``*Args`` class only for them: the models never import pulumi).
if TYPE_CHECKING:
    from pulumi_kubernetes.core.v1 import PodTemplateSpecArgs

    PodTemplate = dict[str, Any] | PodTemplateSpecArgs
else:
    PodTemplate = Annotated[dict[str, Any], BeforeValidator(plain)]



def _keep_deploy_time(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    return value if is_deploy_time_value(value) else handler(value)


def _dump_deploy_time(value: Any, handler: SerializerFunctionWrapHandler) -> Any:
    return value if is_deploy_time_value(value) else handler(value)


#: ``In[T]``: a field of type ``T`` that also takes a value known only at deploy time. Type
#: checkers read it as ``pulumi.Input[T]`` (``T``, an awaitable of it, or ``Output[T]``; the
#: import exists only for them); at run time the value is kept as given and every rule of ``T``
#: applies to plain values. The Pulumi layer parks it like an Output in a dict spec
#: (:mod:`dynamo_pulumi.planning.unknowns`), so both get the same checks and messages.
if TYPE_CHECKING:
    from pulumi import Input as In
else:

    class In:
        def __class_getitem__(cls, item: Any) -> Any:
            return Annotated[item, WrapValidator(_keep_deploy_time), WrapSerializer(_dump_deploy_time)]


DNS_LABEL_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
COMPONENT_NAME_PATTERN = r"^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$"
TOPOLOGY_DOMAIN_PATTERN = r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"
RUNTIME_VERSION_PATTERN = r"^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$"
LABEL_KEY_PATTERN = (
    r"^(([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*/)?"
    r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$"
)

DnsLabel = Annotated[StrictStr, Field(min_length=1, max_length=63, pattern=DNS_LABEL_PATTERN)]
TopologyDomain = Annotated[StrictStr, Field(pattern=TOPOLOGY_DOMAIN_PATTERN)]


class WireModel(BaseModel):
    """A Kubernetes API struct: wire names are camelCase, unknown fields are refused."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
        validate_assignment=False,
        protected_namespaces=(),
        # A field's description is the docstring line under it, which IDE hovers read from the
        # source; pydantic's use_attribute_docstrings would re-parse every model's source at
        # import (about 35 ms of each CLI start) only to copy them into the JSON schema.
    )

    #: The name users know this model by (``ComponentSpec``), for messages; default the class name.
    public_name: ClassVar[str] = ""

    if not TYPE_CHECKING:  # type checkers keep the keyword signature pydantic declares

        def __init__(self, **data: Any) -> None:
            try:
                super().__init__(**data)
            except ValidationError as exc:
                raise for_pulumi_if_running(model_error(type(self), exc, data)) from None

        # Pydantic calls a model's own __init__ for nested dicts too when it is overridden; this
        # one only translates errors, so nested validation stays pydantic's (one error list).
        __init__.__pydantic_base_init__ = True

    def to_wire(self) -> dict[str, Any]:
        """The object as it was written: set fields only, by wire name."""
        return self.model_dump(by_alias=True, exclude_unset=True, mode="python")


class ObjectMetaFields(ObjectMetaHelpers, WireModel):
    """``metadata`` of an API object: every field ``metav1.ObjectMeta`` declares, nothing else.

    Strict like the rest of the object (kubectl's strict field validation refuses
    ``metadata.namespce`` as it refuses ``spec.componets``): a misspelt ``namespace`` would
    otherwise deploy into ``default`` and a misspelt ``labels`` would drop every label. The
    fields the rules never read are kept as given.
    """

    name: StrictStr | None = None
    """Object name, a DNS-1123 subdomain."""
    generate_name: StrictStr | None = None
    """Name prefix the API server completes when no name is given."""
    namespace: StrictStr | None = None
    """Namespace of the object."""
    self_link: StrictStr | None = None
    """Set by the API server (deprecated); ignored on input."""
    uid: StrictStr | None = None
    """Set by the API server; ignored on input."""
    resource_version: StrictStr | None = None
    """Set by the API server; ignored on input."""
    creation_timestamp: Any = None
    """Set by the API server; ignored on input."""
    deletion_timestamp: Any = None
    """Set by the API server when deletion starts; ignored on input."""
    deletion_grace_period_seconds: Any = None
    """Set by the API server when deletion starts; ignored on input."""
    owner_references: list[Any] | None = None
    """Owners of the object (a DCD's DynamoGraphDeployment); never sent in operator mode."""
    finalizers: list[Any] | None = None
    """Finalizers the API server waits for before deleting the object."""
    managed_fields: list[Any] | None = None
    """Server-side apply bookkeeping; ignored on input."""


class OpenModel(WireModel):
    """A struct whose schema preserves unknown fields (kept and dumped as given)."""

    model_config = ConfigDict(extra="allow")


def model_error(model: type[BaseModel], exc: ValidationError, data: dict[str, Any]) -> ModelError:
    """pydantic's refusal of ``model(**data)`` as our error, under the model's public name."""
    from dynamo_pulumi.api.parse import translate_errors  # late: parse imports the models

    name = data.get("name")
    public = getattr(model, "public_name", "") or model.__name__
    return ModelError(translate_errors(exc, data, model=model), public, name if isinstance(name, str) else "")
