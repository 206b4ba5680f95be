"""``policy run``: decide, then run what is allowed on an executor, exiting with its exit code.

The executor (``kind``), its timeouts and limits come from the layered policy's ``executor``
section. ``--executor`` may switch between the sandboxes but never to less isolation than the
policy asks for (host under a bwrap, docker or auto policy is refused, exit 2); ``--timeout``
may not exceed ``executor.max_timeout_s``. A usage error (a bad flag, a missing ``--cwd``)
exits 2 with one line.

DENY exits 4 without running. ASK asks on a terminal (a "no" exits 4); without a terminal it is
not run and exits 3, unless ``--yes`` approves it. ALLOW runs it and exits with the command's
exit code, 124 on timeout. Under bubblewrap every connection the command makes through the
egress proxy is written to the workspace's audit log under the state directory. A missing
sandbox, a full spawn cap or a broken executor exit 1 with the reason on stderr: nothing falls
back to the host.

``--sandboxed`` requires a sandbox whatever the policy's ``executor.kind``: the policy's own
sandbox (bwrap or docker), else bubblewrap (``auto`` then never falls back to the host, and
``host`` is raised to bwrap); where none works it exits 1 saying so, having run nothing.
``--shell bash`` runs the line with ``bash -c`` (as an agent's Bash tool does) instead of
``sh -c``; either way the line is decided as it is written. The hooks' ``--sandbox`` rewrites
an allowed Bash call into ``policy run --sandboxed --shell bash -- LINE``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from clawgate.cli.common import command_line, emit_json, load_cli_policy, say
from clawgate.cli.exitcodes import ExitCode
from clawgate.cli.sandboxview import explain
from clawgate.decision import Decision, Outcome
from clawgate.egressaudit import LazySink
from clawgate.errors import ClawgateError, MissingExtra, PolicyError, SandboxUnavailable
from clawgate.executors import ExecRequest, ExecResult, Limits, executor_from_settings
from clawgate.executors.bwrap import BwrapExecutor
from clawgate.executors.docker_exec import DockerExecutor
from clawgate.guard_setup import default_audit_path, engine_for, state_files

KIND_ISOLATION = {"host": 0, "auto": 1, "bwrap": 2, "docker": 2}  # a flag may not pick less
SANDBOXES = ("bwrap", "docker")
SHELLS = {"sh": "sh", "bash": "bash"}


class UsageProblem(Exception):
    """A flag the policy or the file system does not allow: exit 2, one line."""


@click.command(context_settings={"ignore_unknown_options": False})
@click.option("--policy", "policies", multiple=True, type=click.Path(dir_okay=False),
              help="A manifest layered after the discovered ones (repeatable, in order).")
@click.option("--executor", "kind", type=click.Choice(["host", "bwrap", "docker"]),
              default=None, help="Where an allowed command runs (default: the policy's "
              "executor.kind). Never less isolated than the policy's: host under a policy "
              "that asks for bwrap or docker is refused.")
@click.option("--sandboxed", is_flag=True, help="Run only in a sandbox: the policy's "
              "(bwrap or docker), else bubblewrap; where none works, fail (exit 1) without "
              "running anything.")
@click.option("--shell", type=click.Choice(sorted(SHELLS)), default="sh", show_default=True,
              help="The shell that runs the line (bash: as an agent's Bash tool does).")
@click.option("--timeout", "timeout_s", type=float, default=None,
              help="Seconds before the command is killed (default: the policy's "
              "executor.timeout_s; at most its executor.max_timeout_s).")
@click.option("--workspace", type=click.Path(file_okay=False, exists=True), default=None,
              help="The directory the command may write (default: the policy's workspace, "
              "else the current one).")
@click.option("--cwd", type=click.Path(file_okay=False), default=None,
              help="Where the command runs, inside the workspace.")
@click.option("--network", is_flag=True, help="Let a bwrap or docker sandbox share the host's "
              "network, around the egress proxy (no domain decisions, no connection audit).")
@click.option("--image", default=None, help="The Docker image (default: the policy's "
              "executor.docker.image).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the decision "
              "and the result.")
@click.option("--yes", is_flag=True, help="Approve a command the policy would ask about.")
@click.option("--explain-sandbox", is_flag=True, help="Print what the sandbox shows of the "
              "file system (each path, its mode, why) and exit without running anything.")
@click.argument("command", nargs=-1, required=False)
def run(
        policies: tuple[str, ...], kind: str | None, sandboxed: bool, shell: str,
        timeout_s: float | None,
        workspace: str | None, cwd: str | None, network: bool, image: str | None,
        as_json: bool, yes: bool, explain_sandbox: bool, command: tuple[str, ...]) -> int:
    """Decide on COMMAND and run it if allowed. One argument is a shell line; several are
    quoted and joined into one. The executor, its timeouts and limits come from the policy's
    executor section; the flags override them only within it."""
    try:
        if not command and not explain_sandbox:
            raise UsageProblem("missing COMMAND (or --explain-sandbox)")
        start = Path(workspace or os.getcwd()).resolve()
        policy = load_cli_policy(policies, os.fspath(start / cwd if cwd else start))
        root, here = _places(workspace or policy.engine_settings().workspace, cwd)
        settings, applied = executor_plan(policy.executor.model_dump(), kind, timeout_s,
                                          network, image, sandboxed=sandboxed)
    except (PolicyError, UsageProblem) as exc:
        say(f"policy run: {exc}" if isinstance(exc, UsageProblem) else str(exc))
        return ExitCode.USAGE
    if explain_sandbox:
        return explain(settings, root, state_files(policy, root), as_json)
    line = command_line(command)
    engine = engine_for(policy.engine_settings(), os.fspath(root),
                        in_container=settings["kind"] == "docker",
                        policy_files=state_files(policy, root))
    decision = engine.check(line, cwd=os.fspath(here))
    refusal = _refusal(decision, yes)
    if refusal is not None:
        _report(decision, None, as_json)
        return refusal
    request = ExecRequest(line if shell == "sh" else [SHELLS[shell], "-c", line], cwd=here,
                          timeout_s=applied)
    sink = LazySink(lambda: default_audit_path(os.fspath(root)))
    try:
        with executor_from_settings(settings, workspace=root,
                                    safe_env_names=policy.hooks.safe_env_names,
                                    read_only=state_files(policy, root)) as executor:
            if isinstance(executor, (BwrapExecutor, DockerExecutor)):
                executor.egress_audit = sink
            result = executor.run(request)
    except MissingExtra as exc:  # a configuration error: one line naming the extra
        say(str(exc))
        return ExitCode.USAGE
    except SandboxUnavailable as exc:
        why = (f"--sandboxed: no {settings['kind']} sandbox works here ({exc}); nothing was run"
               if sandboxed else str(exc))
        _report(decision, None, as_json, error=why)
        return ExitCode.INTERNAL
    except ClawgateError as exc:
        _report(decision, None, as_json, error=str(exc))
        return ExitCode.INTERNAL
    finally:
        sink.close()
    _report(decision, result, as_json, timeout_s=applied)
    return result.exit_code


def _places(workspace: str | None, cwd: str | None) -> tuple[Path, Path]:
    """The workspace root and the directory to run in; raises UsageProblem when ``cwd`` is
    missing or outside the workspace."""
    root = Path(workspace or os.getcwd()).resolve()
    if not root.is_dir():
        raise UsageProblem(f"workspace {root}: not a directory")
    here = (root / cwd).resolve() if cwd else root
    if not here.is_dir():
        raise UsageProblem(f"--cwd {cwd}: not a directory")
    if not here.is_relative_to(root):
        raise UsageProblem(f"--cwd {cwd}: outside the workspace {root}")
    return root, here


def executor_plan(section: dict[str, Any], kind: str | None, timeout_s: float | None,
                  network: bool, image: str | None, *, sandboxed: bool = False
                  ) -> tuple[dict[str, Any], float]:
    """The executor settings to run with (the policy's section, the flags applied where they
    stay within it) and the timeout that applies. ``sandboxed``: a sandbox only (the policy's,
    else bwrap). Raises UsageProblem."""
    asked = section["kind"]
    chosen = kind or asked
    if sandboxed and kind == "host":
        raise UsageProblem("--executor host --sandboxed: the host is not a sandbox")
    if sandboxed and chosen not in SANDBOXES:
        chosen = "bwrap"  # auto would fall back to the host; host is what --sandboxed refuses
    if KIND_ISOLATION[chosen] < KIND_ISOLATION[asked]:
        raise UsageProblem(f"--executor {chosen}: the policy runs commands in {asked}; a flag "
                           "cannot run them with less isolation (change executor.kind in a "
                           "policy file instead)")
    if timeout_s is not None and not timeout_s > 0:
        raise UsageProblem(f"--timeout {timeout_s:g}: must be a positive number of seconds")
    ceiling = section["max_timeout_s"]
    if timeout_s is not None and timeout_s > ceiling:
        raise UsageProblem(f"--timeout {timeout_s:g}: above the policy's "
                           f"executor.max_timeout_s ({ceiling:g} s)")
    settings = {**section, "kind": chosen, "docker": dict(section["docker"])}
    if image:
        settings["docker"]["image"] = image
    if network:
        settings["share_network"] = True
        if section["docker"]["network"] == "none" and chosen != "host":
            say(f"policy run: --network: the {chosen} sandbox may reach the network, which "
                "the policy's executor.docker.network does not allow")
    return settings, timeout_s if timeout_s is not None else section["timeout_s"]


def _refusal(decision: Decision, yes: bool) -> ExitCode | None:
    """The exit code when the command must not run, None when it may."""
    if decision.outcome is Outcome.DENY:
        say(f"policy run: denied: {_why(decision)}")
        return ExitCode.DENY
    if decision.outcome is not Outcome.ASK or yes:
        return None
    if not _on_terminal():
        say(f"policy run: needs approval ({_why(decision)}); not run without a terminal; "
            "--yes approves it")
        return ExitCode.ASK
    if click.confirm(f"{decision.command}\n  {_why(decision)}\nRun it?", default=False,
                     err=True):
        return None
    say("policy run: not approved")
    return ExitCode.DENY


def _on_terminal() -> bool:
    """Whether a person can be asked: both the question and the answer go through a tty."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def _why(decision: Decision) -> str:
    return "; ".join(f"{r.rule_id}: {r.message}" for r in decision.reasons) or "no reason given"


def _report(decision: Decision, result: ExecResult | None, as_json: bool,
            error: str | None = None, timeout_s: float | None = None) -> None:
    if as_json:
        value: dict[str, object] = {"decision": decision.as_dict(),
                                    "result": None if result is None else result.as_dict()}
        if error is not None:
            value["error"] = error
        emit_json(value)
        return
    if error is not None:
        say(f"policy run: {error}")
    if result is None:
        return
    sys.stdout.write(result.stdout)
    sys.stdout.flush()
    sys.stderr.write(result.stderr)
    if result.truncated:
        say(f"policy run: output cut at {Limits().output_cap} bytes per stream")
    if result.timed_out:
        say(f"policy run: timed out after {timeout_s:g} s; the command was killed")
