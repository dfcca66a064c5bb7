"""Certificates for one local cluster: a CA, the serving and client certificates signed by it.

Made with the ``openssl`` command (present wherever Debian's base is) so the harness needs no
Python crypto package. EC P-256 keys: each takes milliseconds where RSA 2048 takes a tenth of a
second, and every component accepts them (the API server signs service-account tokens ES256).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

_DAYS = "30"


@dataclass(frozen=True)
class Pair:
    """A certificate and its private key, as PEM files."""

    cert: Path
    key: Path


@dataclass(frozen=True)
class ClusterCerts:
    """Everything the control plane and its clients need to trust one another."""

    ca: Pair
    apiserver: Pair
    admin: Pair
    service_account_key: Path
    service_account_pub: Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, text=True)


def _key(path: Path) -> None:
    _openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(path), cwd=path.parent)
    path.chmod(0o600)


def _signed(d: Path, ca: Pair, name: str, subject: str, extensions: str) -> Pair:
    """A key and a certificate for ``subject`` signed by ``ca`` with the given v3 extensions."""
    pair = Pair(cert=d / f"{name}.crt", key=d / f"{name}.key")
    _key(pair.key)
    csr = d / f"{name}.csr"
    ext = d / f"{name}.ext"
    ext.write_text(extensions)
    _openssl("req", "-new", "-key", str(pair.key), "-subj", subject, "-out", str(csr), cwd=d)
    _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca.cert), "-CAkey", str(ca.key),
             "-CAcreateserial", "-days", _DAYS, "-sha256", "-extfile", str(ext), "-out", str(pair.cert), cwd=d)
    csr.unlink()
    ext.unlink()
    return pair


def serving_extensions(*dns: str) -> str:
    """v3 extensions of a TLS server on loopback, reachable as 127.0.0.1 and the given names."""
    names = ",".join(["IP:127.0.0.1", *(f"DNS:{n}" for n in ("localhost", *dns))])
    return f"basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n" \
           f"extendedKeyUsage=serverAuth\nsubjectAltName={names}\n"


_CLIENT = "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n"


def make_ca(d: Path) -> Pair:
    d.mkdir(parents=True, exist_ok=True)
    ca = Pair(cert=d / "ca.crt", key=d / "ca.key")
    _key(ca.key)
    _openssl("req", "-x509", "-new", "-key", str(ca.key), "-subj", "/CN=dynamo-pulumi-local-ca",
             "-days", _DAYS, "-sha256", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", str(ca.cert), cwd=d)
    return ca


def serving_pair(d: Path, ca: Pair, name: str, *dns: str) -> Pair:
    """A serving certificate for a webhook or API server on 127.0.0.1."""
    return _signed(d, ca, name, f"/CN={name}", serving_extensions(*dns))


def make_cluster_certs(d: Path) -> ClusterCerts:
    """The CA, the API server's serving pair, an admin client (system:masters) and the SA key."""
    ca = make_ca(d)
    apiserver = serving_pair(d, ca, "apiserver", "kubernetes", "kubernetes.default", "kubernetes.default.svc")
    admin = _signed(d, ca, "admin", "/O=system:masters/CN=admin", _CLIENT)
    sa_key = d / "sa.key"
    _key(sa_key)
    sa_pub = d / "sa.pub"
    _openssl("ec", "-in", str(sa_key), "-pubout", "-out", str(sa_pub), cwd=d)
    return ClusterCerts(ca=ca, apiserver=apiserver, admin=admin, service_account_key=sa_key,
                        service_account_pub=sa_pub)
