"""Every validator family, imported once so that each registers itself. Order is check order."""

import clawgate.validators.interpreters  # noqa: F401
import clawgate.validators.iterators  # noqa: F401
import clawgate.validators.remote  # noqa: F401
import clawgate.validators.shells  # noqa: F401
import clawgate.validators.wrappers  # noqa: F401
from clawgate.validators import hygiene, parsing  # noqa: F401
