"""Every validator family, imported once so that each registers itself. Order is check order."""

from clawgate.validators import (  # noqa: F401
    hygiene,
    indirection,
    injection,
    interpreters,
    iterators,
    parsing,
    remote,
    shells,
    wrappers,
)
