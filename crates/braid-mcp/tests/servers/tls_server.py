"""An MCP server over streamable HTTP behind TLS with a certificate from a private CA made up
on the spot (official Python SDK, uvicorn), for the braid-mcp test of https:// servers.

Usage: tls_server.py <dir> <port>. Writes <dir>/cert.pem (the CA certificate the test trusts),
then serves https://127.0.0.1:<port>/mcp with one tool, `greet`."""

import datetime
import ipaddress
import sys
from pathlib import Path

import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mcp.server.mcpserver import MCPServer

server = MCPServer("braid-tls")


@server.tool()
def greet(name: str) -> str:
    """Greets over TLS."""
    return f"hello {name}, over TLS"


def certificate(subject, issuer, public_key, signing_key, ca: bool):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    return builder.sign(signing_key, hashes.SHA256())


def private_ca(directory: Path) -> tuple[Path, Path]:
    """A private CA (cert.pem, the one the test trusts) and a server certificate it signed."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "braid test CA")])
    ca = certificate(ca_name, ca_name, ca_key.public_key(), ca_key, ca=True)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    leaf = certificate(server_name, ca_name, server_key.public_key(), ca_key, ca=False)
    leaf_path = directory / "server.pem"
    key_path = directory / "key.pem"
    leaf_path.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    # Written last: the test waits for it.
    (directory / "cert.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    return leaf_path, key_path


if __name__ == "__main__":
    directory, port = Path(sys.argv[1]), int(sys.argv[2])
    cert, key = private_ca(directory)
    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        ssl_certfile=str(cert),
        ssl_keyfile=str(key),
        log_level="warning",
    )
