"""Certificates for the TLS tests, made with the ``cryptography`` package: a
server CA and a server certificate for 127.0.0.1, ::1 and localhost; a client
CA and a client certificate; and a second CA that signed neither."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class Pki:
    ca: Path  #: the CA certificate that signed the server certificate
    server_cert: Path
    server_key: Path
    client_ca: Path  #: the CA certificate that signed the client certificate
    client_cert: Path
    client_key: Path
    stranger_ca: Path  #: a CA certificate that signed neither


_Issuer = tuple[x509.Certificate, ec.EllipticCurvePrivateKey]


def _write(directory: Path, name: str, cert: x509.Certificate,
           key: ec.EllipticCurvePrivateKey) -> tuple[Path, Path]:
    cert_path, key_path = directory / f"{name}.pem", directory / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def _certificate(name: str, issuer: _Issuer | None, serial: int,
                 extensions: list[tuple[x509.ExtensionType, bool]]) -> _Issuer:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder()
               .subject_name(subject)
               .issuer_name(issuer[0].subject if issuer else subject)
               .public_key(key.public_key())
               .serial_number(serial)
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=2)))
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    cert = builder.sign(issuer[1] if issuer else key, hashes.SHA256())
    return cert, key


def _ca(directory: Path, name: str, serial: int) -> tuple[Path, _Issuer]:
    usage = x509.KeyUsage(digital_signature=False, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False,
                          key_cert_sign=True, crl_sign=True, encipher_only=False,
                          decipher_only=False)
    issuer = _certificate(f"memorywire test {name}", None, serial,
                          [(x509.BasicConstraints(ca=True, path_length=None), True), (usage, True)])
    return _write(directory, name, *issuer)[0], issuer


def _leaf(directory: Path, name: str, issuer: _Issuer, serial: int,
          purpose: x509.ObjectIdentifier, names: list[x509.GeneralName]) -> tuple[Path, Path]:
    usage = x509.KeyUsage(digital_signature=True, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False,
                          key_cert_sign=False, crl_sign=False, encipher_only=False,
                          decipher_only=False)
    extensions: list[tuple[x509.ExtensionType, bool]] = [
        (x509.BasicConstraints(ca=False, path_length=None), False), (usage, True),
        (x509.ExtendedKeyUsage([purpose]), False)]
    if names:
        extensions.append((x509.SubjectAlternativeName(names), False))
    return _write(directory, name, *_certificate(name, issuer, serial, extensions))


def make_pki(directory: Path) -> Pki:
    """Generate the certificates and keys (PEM) in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    ca, ca_issuer = _ca(directory, "ca", 1)
    client_ca, client_issuer = _ca(directory, "client-ca", 2)
    stranger_ca, _ = _ca(directory, "stranger-ca", 3)
    server_cert, server_key = _leaf(
        directory, "server", ca_issuer, 4, ExtendedKeyUsageOID.SERVER_AUTH,
        [x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
         x509.IPAddress(ipaddress.ip_address("::1")), x509.DNSName("localhost")])
    client_cert, client_key = _leaf(directory, "client", client_issuer, 5,
                                    ExtendedKeyUsageOID.CLIENT_AUTH, [])
    return Pki(ca, server_cert, server_key, client_ca, client_cert, client_key, stranger_ca)
