"""``policy check`` as a click command, built from the option table in ``check_options``, and
``policy explain``: the same check with its whole trace."""

from __future__ import annotations

import click

from clawgate.cli.check_options import DIRECTORY, FILES, FLAG, OPTIONS, CheckArgs, problem

HELP = """Decide ALLOW, ASK or DENY for COMMAND under the embedded default policy layered
with --policy files.

COMMAND is one shell line, or the words after -- (quoted and joined into one line, as
`policy run` does), or - to read one command (possibly several lines) from stdin.

Exit codes: 0 ALLOW, 3 ASK, 4 DENY, 2 usage error or bad policy file, 1 internal error;
--jsonl exits 0 after answering every line."""


def _option(option: str, dest: str, kind: str, metavar: str, text: str) -> click.Option:
    if kind == FLAG:
        return click.Option([option, dest], is_flag=True, help=text)
    if kind == DIRECTORY:
        return click.Option([option, dest], metavar=metavar, help=text,
                            type=click.Path(exists=True, file_okay=False))
    assert kind == FILES, kind
    return click.Option([option, dest], metavar=metavar, help=text, multiple=True,
                        type=click.Path(dir_okay=False))


def _run(**given: object) -> int:
    from clawgate.cli.check import run_check

    args = CheckArgs(**given)  # type: ignore[arg-type]
    why = problem(args)
    if why is not None:
        raise click.UsageError(why)
    return run_check(args)


check = click.Command(
    "check", callback=_run, help=HELP, short_help="Decide ALLOW (0), ASK (3) or DENY (4).",
    params=[*(_option(*spec) for spec in OPTIONS),
            click.Argument(["words"], nargs=-1, metavar="[--] COMMAND...")])


EXPLAIN_HELP = """Print why COMMAND would be allowed, asked about or denied: each simple command it
runs, every rule that had an opinion, and the winner (the same as `policy check --explain`).

Exit codes: 0 ALLOW, 3 ASK, 4 DENY, 2 usage error or bad policy file, 1 internal error."""


def _run_explain(**given: object) -> int:
    return _run(**given, explain=True)


explain = click.Command(
    "explain", callback=_run_explain, help=EXPLAIN_HELP,
    short_help="Why COMMAND is allowed, asked about or denied (the whole trace).",
    params=[*(_option(*spec) for spec in OPTIONS if spec[0] != "--explain"),
            click.Argument(["words"], nargs=-1, metavar="[--] COMMAND...")])
