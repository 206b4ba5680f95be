"""Every validator family, imported once so that each registers itself. Order is check order."""

from clawgate.validators import hygiene, parsing  # noqa: F401
