"""Every validator family, imported once so that each registers itself. Order is check order."""

# detection, part b: catastrophic, destructive, files and secrets, environment
import clawgate.validators.catastrophic
import clawgate.validators.cwdtrack
import clawgate.validators.deletes
import clawgate.validators.destructive
import clawgate.validators.disruptive
import clawgate.validators.envvars
import clawgate.validators.files
import clawgate.validators.gitops
import clawgate.validators.permissions
import clawgate.validators.secrets
import clawgate.validators.shells  # noqa: F401
from clawgate.validators import hygiene, parsing  # noqa: F401
