"""Write test certificates into the directory given: ca.pem (a CA),
server.pem/server.key (127.0.0.1 and localhost, issued by the CA),
client.pem/client.key (a client certificate issued by the CA), and
stranger.pem/stranger.key (a client certificate from another CA). EC P-256
keys, valid from an hour ago for two days; made with ``cryptography``."""

import datetime as dt
import ipaddress
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def builder(subject, issuer, public_key):
    now = dt.datetime.now(dt.timezone.utc)
    return (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(issuer)
            .public_key(public_key).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(hours=1))
            .not_valid_after(now + dt.timedelta(days=2)))


def authority(common_name):
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (builder(common_name, name(common_name), key.public_key())
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .sign(key, hashes.SHA256()))
    return key, cert


def issue(ca_key, ca_cert, common_name, server):
    key = ec.generate_private_key(ec.SECP256R1())
    usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    b = (builder(common_name, ca_cert.subject, key.public_key())
         .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
         .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
    if server:
        b = b.add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False)
    return key, b.sign(ca_key, hashes.SHA256())


def write(directory, stem, key, cert):
    (directory / f"{stem}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    if key is not None:
        (directory / f"{stem}.key").write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))


def main(directory):
    ca_key, ca_cert = authority("duetime test CA")
    write(directory, "ca", None, ca_cert)
    write(directory, "server", *issue(ca_key, ca_cert, "duetime test server", True))
    write(directory, "client", *issue(ca_key, ca_cert, "duetime test client", False))
    other_key, other_cert = authority("another CA")
    write(directory, "stranger", *issue(other_key, other_cert, "stranger", False))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
