"""An MCP server over streamable HTTP behind TLS with a certificate from a private CA made up
on the spot (official Python SDK, uvicorn), for the braid-mcp test of https:// servers.

Usage: tls_server.py <dir>. Binds a free loopback port, writes <dir>/cert.pem (the CA
certificate the test trusts), then <dir>/port (the port, written last: the test waits for it),
and serves https://127.0.0.1:<port>/mcp with one tool, `greet`. Binding here, not on a port the
test picked and released, means no other test can take the port in between."""

import asyncio
import datetime
import ipaddress
import socket
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
    (directory / "cert.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    return leaf_path, key_path


if __name__ == "__main__":
    directory = Path(sys.argv[1])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    cert, key = private_ca(directory)
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(
        app,
        ssl_certfile=str(cert),
        ssl_keyfile=str(key),
        log_level="warning",
    )
    # Connections wait in the listener's backlog until the server accepts them. Renamed into
    # place so that the test never reads a half-written file.
    (directory / "port.tmp").write_text(str(listener.getsockname()[1]))
    (directory / "port.tmp").replace(directory / "port")
    asyncio.run(uvicorn.Server(config).serve(sockets=[listener]))
