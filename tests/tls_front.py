"""A TLS front for a plaintext gRPC server: what a test puts before an emulator so that a client
reaches it as it reaches Google's endpoints, over TLS with HTTP/2 negotiated by ALPN, through
`client_options` alone. Its certificate is self-signed for localhost and 127.0.0.1; a client
process trusts it through GRPC_DEFAULT_SSL_ROOTS_FILE_PATH (gRPC's own setting for its roots).

Bytes pass through unchanged in both directions: the front terminates TLS and nothing else."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import ssl
import threading
from pathlib import Path


def self_signed(directory: Path) -> tuple[Path, Path]:
    """(certificate, key) PEM files for localhost and 127.0.0.1, valid for a day."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                    x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                       critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "front-cert.pem", directory / "front-key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


class TlsFront:
    """Listens on 127.0.0.1 (a free port) with TLS, and forwards each connection to `upstream`
    (HOST:PORT, plaintext). Runs in a thread of its own until `close`."""

    def __init__(self, upstream: str, directory: Path):
        self.upstream_host, port = upstream.rsplit(":", 1)
        self.upstream_port = int(port)
        self.certificate, key = self_signed(directory)
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(self.certificate, key)
        self.context.set_alpn_protocols(["h2"])  # gRPC insists on HTTP/2 by ALPN
        self.loop = asyncio.new_event_loop()
        self.connections = 0
        ready = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(ready,), daemon=True, name="tls-front")
        self.thread.start()
        if not ready.wait(10):
            raise RuntimeError("the TLS front did not start")

    def _serve(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self._forward, "127.0.0.1", 0, ssl=self.context))
        self.port = self.server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

    @property
    def endpoint(self) -> str:
        """What a client is given: the name its certificate holds, and the front's port."""
        return f"localhost:{self.port}"

    async def _forward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        except OSError:
            writer.close()
            return

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, ssl.SSLError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    def close(self) -> None:
        def stop() -> None:
            self.server.close()
            self.loop.stop()

        self.loop.call_soon_threadsafe(stop)
        self.thread.join(10)
