"""The ``policy`` command: one click group (``app``). Data on stdout, prose on stderr; exit
codes in ``ExitCode``.

Subcommands live in their own modules and are imported only when called. ``policy check`` with
well-formed arguments is read without importing click (``check_options.fast_parse``, held to
click's reading by a test), so that the command an agent runs before every other starts fast.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # the decider's client runs before anything else is imported
if TYPE_CHECKING:
    from collections.abc import Sequence

# name -> "module:attribute" of a click command; imported on demand. One line a subcommand.
SUBCOMMANDS: dict[str, str] = {
    "approvals": "clawgate.cli.approvals:approvals",
    "audit": "clawgate.cli.audit:audit",
    "check": "clawgate.cli.check_command:check",
    "config": "clawgate.cli.config:config",
    "daemon": "clawgate.cli.daemon:daemon",
    "doctor": "clawgate.cli.doctor:doctor",
    "explain": "clawgate.cli.check_command:explain",
    "explain-program": "clawgate.cli.explain:explain_program",
    "fuzz": "clawgate.cli.fuzz:fuzz",
    "hook": "clawgate.cli.hook:hook",
    "import": "clawgate.cli.importer:import_rules",
    "init": "clawgate.cli.init:init",
    "lint": "clawgate.cli.lint:lint",
    "mcp-proxy": "clawgate.cli.mcp_proxy:mcp_proxy",
    "run": "clawgate.cli.run:run",
    "schema": "clawgate.cli.schema:schema",
    "serve": "clawgate.cli.serve:serve",
    "tools": "clawgate.cli.tools:tools",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (never raise). A reader of stdout that goes away
    does not change it. Run as the process's own command line (``argv`` None), a check or a
    hook goes to the resident decider first (``clawgate.daemon``), which runs this same
    function in a warm fork; without its answer the call is decided here. A call the decider
    answered ends the process here, its output written (``client.finish``): nothing of this
    interpreter is left to tear down."""
    start_decider = False
    if argv is None:
        from clawgate.daemon.client import finish, forward

        answered, start_decider = forward(sys.argv[1:])
        if answered is not None:
            finish(answered)
    from clawgate.cli.streams import pipe_safe

    args = list(sys.argv[1:] if argv is None else argv)
    code = pipe_safe(lambda: _guarded(args))
    if start_decider:
        from clawgate.daemon.client import start_server

        start_server()
    return code


def _guarded(args: list[str]) -> int:
    try:
        return _dispatch(args)
    except Exception as exc:  # the contract: exit 1 with one line on stderr, never a traceback
        from clawgate.cli.exitcodes import ExitCode

        sys.stderr.write(f"policy: internal error: {type(exc).__name__}: {exc}\n")
        return ExitCode.INTERNAL


def _dispatch(args: list[str]) -> int:
    if len(args) == 2 and args[0] == "hook" and args[1] in ("claude-code", "gemini"):
        from clawgate.cli.hook import plain

        return plain(args[1])
    if args[:1] == ["check"]:
        from clawgate.cli.check_options import fast_parse

        parsed = fast_parse(args[1:])
        if parsed is not None:
            from clawgate.cli.check import run_check

            return run_check(parsed)
    from clawgate.cli.app import run

    return run(SUBCOMMANDS, args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
