"""The environment variables that say which certificate authorities a program trusts.

A machine behind a TLS-inspecting proxy (a company's, a CI provider's) trusts that proxy's CA
through variables naming a bundle or a directory: OpenSSL and Python's ``ssl`` read
``SSL_CERT_FILE``/``SSL_CERT_DIR``, pip ``PIP_CERT`` and ``REQUESTS_CA_BUNDLE``, node and npm
``NODE_EXTRA_CA_CERTS``, curl ``CURL_CA_BUNDLE``, git ``GIT_SSL_CAINFO``, cargo
``CARGO_HTTP_CAINFO``. The sandbox's egress proxy passes TLS through untouched (``CONNECT``),
so a program inside checks certificates with its own trust: without these variables every
download fails its certificate check there, as on the host executor. They name files and hold
no secret, so the embedded policy's ``hooks.safe_env_names`` passes them on. A command that
sets one itself is judged by the checker (``CG-ENV-005``: a CA file from outside the system's
stores asks).
"""

from __future__ import annotations

TRUST_ENV_NAMES: tuple[str, ...] = (
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_CERT",
    "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO", "CARGO_HTTP_CAINFO",
)
