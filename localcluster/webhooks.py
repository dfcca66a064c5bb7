"""Webhooks of controllers that run beside the local cluster, reached on loopback.

Every webhook and CRD conversion upstream manifests register points at an in-cluster Service
(``clientConfig.service``), which an API server with no pod network cannot dial. Each controller
here serves its webhooks on 127.0.0.1 with a certificate signed by the cluster's CA, so its
configurations are rewritten to ``clientConfig.url: https://127.0.0.1:<port><path>`` plus that
CA as ``caBundle``: what controller-runtime's envtest does for one local server, done for
several (LWS, Grove and the Dynamo operator each listen on a port of their own).
"""

from __future__ import annotations

import base64
import copy
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .certs import Pair, serving_pair

WEBHOOK_KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")


@dataclass(frozen=True)
class ServingCerts:
    """A controller's certificate directory as controller-runtime reads it: tls.crt, tls.key, ca.crt."""

    directory: Path
    ca_pem: bytes

    @property
    def ca_bundle(self) -> str:
        return base64.b64encode(self.ca_pem).decode()


def serving_certs(directory: Path, ca: Pair, name: str) -> ServingCerts:
    """A 127.0.0.1 serving pair for ``name`` signed by the cluster CA, under the file names
    controller-runtime's webhook server (and the Dynamo operator's manual mode) expect."""
    directory.mkdir(parents=True, exist_ok=True)
    pair = serving_pair(directory, ca, name)
    shutil.copyfile(pair.cert, directory / "tls.crt")
    shutil.copyfile(pair.key, directory / "tls.key")
    (directory / "tls.key").chmod(0o600)
    shutil.copyfile(ca.cert, directory / "ca.crt")
    return ServingCerts(directory=directory, ca_pem=ca.cert.read_bytes())


def loopback_client_config(port: int, path: str, certs: ServingCerts) -> dict[str, Any]:
    return {"url": f"https://127.0.0.1:{port}{path}", "caBundle": certs.ca_bundle}


def _path_of(client_config: Mapping[str, Any]) -> str:
    service = client_config.get("service") or {}
    path = service.get("path")
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError(f"a webhook clientConfig without a service path: {dict(client_config)}")
    return path


def on_loopback(doc: Mapping[str, Any], port: int, certs: ServingCerts, *, name_prefix: str = "",
                object_selectors: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """A webhook configuration whose every webhook calls ``https://127.0.0.1:<port><its path>``.

    ``name_prefix`` renames the configuration (kubebuilder's generic
    ``mutating-webhook-configuration`` would clash between controllers); ``object_selectors``
    adds an ``objectSelector`` to the named webhooks, as an upstream kustomize patch does.
    """
    if doc.get("kind") not in WEBHOOK_KINDS:
        raise ValueError(f"not a webhook configuration: {doc.get('kind')}")
    out = copy.deepcopy(dict(doc))
    meta = out.setdefault("metadata", {})
    meta["name"] = f"{name_prefix}{meta['name']}"
    for hook in out.get("webhooks") or []:
        hook["clientConfig"] = loopback_client_config(port, _path_of(hook["clientConfig"]), certs)
        if object_selectors and hook["name"] in object_selectors:
            hook["objectSelector"] = copy.deepcopy(dict(object_selectors[hook["name"]]))
    return out


def conversion_on_loopback(port: int, certs: ServingCerts, path: str = "/convert") -> dict[str, Any]:
    """The merge patch that points a CRD's conversion webhook at ``127.0.0.1:<port><path>``."""
    return {"spec": {"conversion": {"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"service": None, **loopback_client_config(port, path, certs)},
    }}}}


def webhook_configuration(kind: str, name: str, hooks: Iterable[Mapping[str, Any]], port: int,
                          certs: ServingCerts) -> dict[str, Any]:
    """A webhook configuration written from a table: each hook's ``path`` becomes its loopback URL.

    Each hook mapping carries ``name``, ``path``, ``rules`` and optionally ``failurePolicy``
    (default ``Fail``), ``matchPolicy``, ``objectSelector``, ``namespaceSelector``.
    """
    webhooks = []
    for hook in hooks:
        entry: dict[str, Any] = {
            "name": hook["name"],
            "admissionReviewVersions": ["v1"],
            "sideEffects": "None",
            "failurePolicy": hook.get("failurePolicy", "Fail"),
            "timeoutSeconds": 10,
            "rules": copy.deepcopy(list(hook["rules"])),
            "clientConfig": loopback_client_config(port, hook["path"], certs),
        }
        for key in ("matchPolicy", "objectSelector", "namespaceSelector"):
            if key in hook:
                entry[key] = copy.deepcopy(hook[key])
        webhooks.append(entry)
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": name},
            "webhooks": webhooks}


def rule(group: str, versions: Iterable[str], resources: Iterable[str],
         operations: Iterable[str] = ("CREATE", "UPDATE"), scope: str = "Namespaced") -> dict[str, Any]:
    return {"apiGroups": [group], "apiVersions": list(versions), "resources": list(resources),
            "operations": list(operations), "scope": scope}
