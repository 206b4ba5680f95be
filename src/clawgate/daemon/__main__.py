"""``python -m clawgate.daemon serve [--idle SECONDS]``: run the resident decider for this user
and installation (``policy daemon start`` runs this, detached)."""

from __future__ import annotations

import argparse
import sys

from clawgate.daemon import location
from clawgate.daemon.server import IDLE_SECONDS, Decider


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m clawgate.daemon")
    parser.add_argument("what", choices=["serve"])
    parser.add_argument("--idle", type=float, default=IDLE_SECONDS,
                        help="Exit after this many seconds without a call.")
    args = parser.parse_args(argv)
    return Decider(location.socket_path(create=True), args.idle).serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
