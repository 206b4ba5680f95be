"""Every validator family, imported once so that each registers itself. Order is check order."""

from clawgate.validators import (  # noqa: F401
    consoles,
    escapes,
    escapes_config,
    hygiene,
    indirection,
    injection,
    interpreters,
    iterators,
    launchers,
    parsing,
    remote,
    shells,
    staged,
    textprograms,
    wrappers,
)
