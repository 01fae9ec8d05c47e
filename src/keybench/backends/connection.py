"""How a binding's clients reach the service: the emulator a `*_EMULATOR_HOST` variable names
(the client libraries' own switch), Google's default endpoint with Application Default
Credentials, or an explicit endpoint (`--endpoint`) such as a regional or private one."""

from __future__ import annotations

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def is_local(endpoint: str) -> bool:
    """Whether HOST:PORT names this machine (a test's server, an emulator behind a proxy)."""
    host = endpoint.rsplit(":", 1)[0].strip("[]")
    return host in LOCAL_HOSTS or host.startswith("127.")


def client_settings(endpoint: str | None) -> dict:
    """The keyword arguments of a Google client for `endpoint` (HOST:PORT, `--endpoint`): the
    endpoint as its client_options, and anonymous credentials when it is on this machine (a
    local server checks none; Spanner's client then speaks plaintext to it, Bigtable's TLS).
    None: nothing, so the library's own default endpoint and Application Default Credentials."""
    if endpoint is None:
        return {}
    from google.api_core.client_options import ClientOptions  # an object: Bigtable's admin client takes no dict

    settings: dict = {"client_options": ClientOptions(api_endpoint=endpoint)}
    if is_local(endpoint):
        from google.auth.credentials import AnonymousCredentials

        settings["credentials"] = AnonymousCredentials()
    return settings
