"""Global options written before a CLI's verb: ``kubectl --context dev get pods`` is ``kubectl
get pods`` run against another context, ``helm --kube-context dev list`` is ``helm list``.

A reader that takes the first word not starting with ``-`` for the verb reads ``dev`` there,
and the verb is lost: a listing is taken for an unknown change (asked about), and a secret
printed or sent (``kubectl --context prod get secret db -o yaml | curl -d @- …``) is no longer
seen as one. The CLIs' own documented global options, and which of them take a value, are
listed here; :func:`without_globals` gives the command as if they were not there (their
effect, such as a context or a remote engine, is judged elsewhere: CG-NET-005 for a container
engine on another machine). Only options before the first operand are taken away, and only
ones listed: an unknown option stops the reading, so nothing is skipped that might be the
verb."""

from __future__ import annotations

from clawgate.shell.model import SimpleCommand, Word

# program -> (global options that take a value, global options that take none)
_KUBE = (frozenset({"-n", "--namespace", "--context", "--kubeconfig", "-s", "--server",
                    "--cluster", "--user", "--as", "--as-group", "--as-uid",
                    "--request-timeout", "--certificate-authority", "--client-certificate",
                    "--client-key", "--tls-server-name", "--cache-dir", "--log-file", "-v",
                    "--v", "--vmodule", "--profile", "--profile-output"}),
         frozenset({"--insecure-skip-tls-verify", "--match-server-version",
                    "--warnings-as-errors", "--disable-compression"}))
GLOBALS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "kubectl": _KUBE, "oc": _KUBE,
    "helm": (frozenset({"--kube-context", "--kubeconfig", "-n", "--namespace",
                        "--kube-apiserver", "--kube-as-user", "--kube-as-group",
                        "--kube-ca-file", "--kube-tls-server-name", "--registry-config",
                        "--repository-config", "--repository-cache", "--burst-limit", "--qps",
                        "--content-cache"}),
             frozenset({"--debug", "--kube-insecure-skip-tls-verify"})),
    "gcloud": (frozenset({"--project", "--account", "--configuration", "--format",
                          "--verbosity", "--impersonate-service-account", "--billing-project",
                          "--flags-file", "--flatten", "--trace-token"}),
               frozenset({"--quiet", "-q", "--log-http", "--no-user-output-enabled",
                          "--user-output-enabled"})),
    "az": (frozenset({"--subscription", "--output", "-o", "--query"}),
           frozenset({"--debug", "--verbose", "--only-show-errors"})),
    "gh": (frozenset({"-R", "--repo", "--hostname"}), frozenset()),
    "pulumi": (frozenset({"-C", "--cwd", "--color", "-v", "--verbose", "--tracing",
                          "--logflow", "--profiling"}),
               frozenset({"--emoji", "--logtostderr", "--non-interactive",
                          "--disable-integrity-checking"})),
    "aws": (frozenset({"--profile", "--region", "--output", "--query", "--endpoint-url",
                       "--color", "--cli-read-timeout", "--cli-connect-timeout", "--ca-bundle",
                       "--cli-binary-format"}),
            frozenset({"--debug", "--no-verify-ssl", "--no-paginate", "--no-sign-request",
                       "--no-cli-pager", "--cli-auto-prompt", "--no-cli-auto-prompt"})),
    # the password managers' and secret stores' CLIs (their verbs print secrets: CG-SEC-003)
    "op": (frozenset({"--account", "--config", "--encoding", "--format", "--session"}),
           frozenset({"--debug", "--no-color", "--iso-timestamps", "--cache"})),
    "doppler": (frozenset({"-p", "--project", "-c", "--config", "--token", "--scope",
                           "--api-host", "--configuration"}),
                frozenset({"--debug", "--silent", "--print-config", "--json",
                           "--no-check-version", "--no-timeout"})),
    "bw": (frozenset({"--session"}),
           frozenset({"--raw", "--pretty", "--nointeraction", "--quiet", "--response",
                      "--cleanexit"})),
    "docker": (frozenset({"-H", "--host", "--context", "-c", "--config", "-l", "--log-level",
                          "--tlscacert", "--tlscert", "--tlskey"}),
               frozenset({"-D", "--debug", "--tls", "--tlsverify"})),
    "podman": (frozenset({"--url", "--connection", "-c", "--identity", "--root", "--runroot",
                          "--log-level", "--storage-driver", "--storage-opt",
                          "--cgroup-manager", "--events-backend", "--module", "--tmpdir",
                          "--runtime", "--conmon", "--ssh", "--config", "--network-cmd-path",
                          "--imagestore", "--volumepath"}),
               frozenset({"--remote", "-r", "--syslog", "--noout", "--transient-store"})),
    "nerdctl": (frozenset({"--address", "-a", "-H", "--host", "--namespace", "-n",
                           "--snapshotter", "--storage-driver", "--cni-path",
                           "--cni-netconfpath", "--data-root", "--cgroup-manager",
                           "--hosts-dir", "--bridge-ip"}),
                frozenset({"--debug", "--debug-full", "--experimental",
                           "--insecure-registry"})),
    "ctr": (frozenset({"--address", "-a", "--namespace", "-n", "--timeout",
                       "--connect-timeout"}),
            frozenset({"--debug"})),
}


def global_span(cmd: SimpleCommand) -> int:
    """How many words after the program are its listed global options and their values."""
    found = GLOBALS.get(cmd.program or "")
    if found is None:
        return 0
    valued, bare = found
    words = cmd.words
    index = 1
    while index < len(words):
        text = words[index].value
        if text is None or not text.startswith("-"):
            break
        name, equals, _ = text.partition("=")
        if name in valued and not equals:
            index += 2
        elif name in valued or text in bare:
            index += 1
        else:
            break
    return min(index, len(words)) - 1


def without_globals(cmd: SimpleCommand) -> SimpleCommand:
    """``cmd`` with the global options before its verb taken away (the same command when it
    has none)."""
    span = global_span(cmd)
    if span == 0:
        return cmd
    words: tuple[Word, ...] = (cmd.words[0], *cmd.words[1 + span:])
    return SimpleCommand(cmd.text, words, cmd.assignments, cmd.redirects, cmd.pipeline,
                         cmd.stage, cmd.nesting, cmd.background, cmd.depth, cmd.offset)
