"""Reading inline program text for what matters to a gate: does it start processes, open
sockets, change user ids or load native code? And which shell commands does it spell out?"""

from __future__ import annotations

from clawgate.lazyre import lazy_pattern
from clawgate.records import record
from clawgate.validators.programs import SHELL_REFERENCE


def _word(pattern: str) -> str:
    """``\\b`` + ``pattern`` for a pattern that starts with a literal word character, written
    to start with that character: ``re`` skips an alternative that starts with a literal at
    every position where another character stands, but makes a full try of one that starts
    with ``\\b`` (~50 of them: 0.15 ms over 200 characters of code). Before a word character
    ``\\b`` is "no word character before it", which the look-behind says after it."""
    return f"{pattern[0]}(?<!\\w.){pattern[1:]}"


# Starting a process or running shell text, across the usual scripting languages. Every
# alternative starts with a literal character (``_word``).
_EXEC = lazy_pattern("|".join([
    _word(r"os\s*\.\s*(?:system|popen|exec\w*|spawn\w*|fork|posix_spawn\w*)\b"),
    _word(r"subprocess\b"), _word(r"pty\s*\.\s*spawn\b"),
    _word(r"commands\s*\.\s*getoutput\b"), _word(r"platform\.popen\b"),
    _word(r"child_process\b"),
    *(_word(rf"{name}\b") for name in ("execSync", "execFileSync", "spawnSync", "execFile")),
    r"process\.binding",
    _word(r"Deno\s*\.\s*(?:Command|run)\b"), _word(r"Bun\s*\.\s*(?:spawn|spawnSync|\$)"),
    *(_word(rf"{name}\b") for name in ("shell_exec", "passthru", "proc_open", "popen",
                                        "pcntl_exec", "proc_nice")),
    _word(r"fork\b(?![\w.])"),
    _word(r"Kernel\s*[.:]+\s*(?:system|exec|spawn|`)\b"), _word(r"IO\s*\.\s*popen\b"),
    _word(r"Open3\b"), _word(r"PTY\b"),
    _word(r"Process\s*\.\s*spawn\b"), _word(r"Runtime\s*\.\s*getRuntime\b"),
    _word(r"ProcessBuilder\b"),
    _word(r"os\s*\.\s*execute\b"), _word(r"io\s*\.\s*popen\b"),
    *(_word(rf"{name}\b") for name in ("callCommand", "readProcess", "spawnCommand",
                                        "rawSystem", "runCommand", "createProcess")),
    _word(r"System\.Process\b"), _word(r"run-(?:shell-command|program)\b"),
    _word(r"shell-command\b"),
    r"\((?:term|ansi-term|shell|eshell|compile|async-shell-command|vterm)\b",
    *(_word(rf"{name}-process\b") for name in ("call", "start", "make")),
    _word(r"esyscmd\b"), _word(r"syscmd\b"),
    r"r(?<![\w.].)un\s*\(\s*`",  # no word character or dot before it
    _word(r"pipeline\s*\(\s*`"), _word(r"""sh\s*\(\s*["']"""),
    _word(r"qx\s*[^\w\s]"), r"%(?<=\w.)x\s*[^\w\s]",  # \b before a "%": a word character
    _word(r"""open\s*\([^;"']{0,80}["']\s*\|"""),
    _word(r"""open\s*\(?[^;|]{0,200}\|\s*["']"""),
    r""""-\|["']""", r"""'-\|["']""", r""""\|-["']""", r"""'\|-["']""",
    _word(r"shell\s*\("), _word(r"unix\s*\("),
    _word(r"os\s*\.\s*(?:remove|unlink|rmdir)\b"), _word(r"shutil\s*\.\s*rmtree\b"),
    _word(r"do\s+shell\s+script\b"),
    # AppleScript telling a terminal to type a line and run it: Terminal's ``do script``,
    # iTerm2's ``write text``
    _word(r"do\s+script\b"), _word(r"write\s+text\b"),
]))
# Bare process calls (``system "id"``, ``exec("sh")``), looked for outside string literals so
# that prose such as ``print("system ready")`` is not one.
_EXEC_BARE = lazy_pattern(r"(?<![\w.])(?:system|system2|exec|spawn|syscall)"
                          r"(?:\s*[(\[{'\"$`]|\s+[\w'\"`/$])")
_STRINGS = lazy_pattern(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
# Evaluating text as code: what runs cannot be read here.
_DYNAMIC = lazy_pattern(r"(?<![\w.])(?:eval|exec|execfile|compile|__import__|assert_options|"
                        r"create_function|instance_eval|class_eval|module_eval|Function)\s*\(|"
                        r"\b(?:b64decode|base64_decode|fromCharCode|unhexlify|decode\s*\(\s*['\"]"
                        r"(?:base64|hex|rot))\b|(?:\\x[0-9a-fA-F]{2}){3}")
# Sockets: with a process, a remote or bind shell.
_NETWORK = lazy_pattern(r"\bsocket\b|\bSocket\b|fsockopen|TCPSocket|UDPSocket|TCPServer|IO::Socket|"
                        r"\bnet\s*\.\s*(?:connect|createServer|Socket)\b|require\s*\(\s*['\"]net"
                        r"['\"]|\bSockets\b|/inet/|/dev/tcp/|/dev/udp/|\bdup2\b|\bztcp\b|"
                        r"\bsocat\b|\bnc\s+-")
# Changing user ids: with a process, privilege escalation.
_PRIVILEGE = lazy_pattern(r"set(?:e|re|res)?[ug]id\s*\(|posix_set[ug]id|Process::Sys\.set|"
                          r"Process\.(?:uid|euid)\s*=|process\.set(?:e)?[ug]id|POSIX::set[ug]id|"
                          r"\bsetuid\b")
# Loading native code into the interpreter.
_NATIVE = lazy_pattern(r"\b(?:ctypes|cdll|CDLL|LoadLibrary|dlopen|Fiddle|ffi\s*\.\s*load|"
                       r"DynaLoader|dl_load_file|System\.loadLibrary|process\.dlopen)\b|"
                       r"\.so(?:\.\d+)*['\"]")
_BACKTICKS = lazy_pattern(r"`[^`]+`")
_INTERPOLATED = lazy_pattern(r"[$@]|#\{")
# Perl's qx and Ruby's %x: backticks by another spelling (``qx(cmd)``, ``qx{cmd}``, ``%x!cmd!``).
_QUOTED_COMMAND = lazy_pattern(r"(?<![\w$@%])(?:qx|%x)\s*(?:\((?P<p>[^()]*)\)|\{(?P<b>[^{}]*)\}|"
                               r"\[(?P<k>[^\[\]]*)\]|<(?P<a>[^<>]*)>|"
                               r"(?P<d>[^\w\s({\[<])(?P<s>(?:(?!(?P=d)).)*)(?P=d))")
# String literals handed to a process-starting call: ``system("...")``, ``exec "..."``.
_CALLED = lazy_pattern(
    r"\b(?:system|popen|shell_exec|passthru|exec|execute|spawn|execSync|check_output|getoutput|"
    r"check_call|call|run|Popen|callCommand|(?:run-|async-)?shell-command|esyscmd|syscmd|"
    r"proc_open|do\s+shell\s+script|do\s+script|write\s+text)"
    r"\s*\(?\s*\[?\s*(?P<q>[\"'])(?P<s>(?:\\.|(?!(?P=q)).){1,400}?)(?P=q)")

# A shell's argv spelled as string literals in any language's list or call: ``["sh", "-c",
# "CMD"]`` (Groovy, Java's ``String[]``, Scala's ``Seq``), ``(sh "bash" "-c" "CMD")``
# (Clojure): the third string is a shell command line.
_ARGV_SHELL = lazy_pattern(
    r"""["'](?:/(?:usr/)?bin/)?(?:ba|da|z|k|a)?sh["']\s*,?\s*["']-c["']\s*,?\s*"""
    r"""(?P<q>["'])(?P<s>(?:\\.|(?!(?P=q)).){1,400}?)(?P=q)""")

MAX_COMMANDS = 16  # spelled-out commands checked per piece of code; the rest add nothing new


@record(frozen=True, slots=True)
class Findings:
    """What inline code does: starts processes, evaluates text, uses the network, changes ids,
    loads native code; and the shell command strings it hands to process calls."""

    exec: bool = False
    dynamic: bool = False
    network: bool = False
    privilege: bool = False
    native: bool = False
    commands: tuple[str, ...] = ()

    @property
    def risky(self) -> bool:
        return self.exec or self.dynamic or self.native


def scan(code: str, backticks: bool = False) -> Findings:
    """What ``code`` does, as far as reading it can tell."""
    argv_shells = [m.group("s") for m in _ARGV_SHELL.finditer(code)]
    runs = bool(argv_shells or _EXEC.search(code) or SHELL_REFERENCE.search(code) or (
        backticks and _BACKTICKS.search(code)) or _EXEC_BARE.search(_STRINGS.sub('""', code)))
    called = argv_shells + [m.group("s") for m in _CALLED.finditer(code)] if runs else []
    if backticks:  # `cmd` runs cmd; a literal one (no interpolation) can be read
        called += [b[1:-1] for b in _BACKTICKS.findall(code) if not _INTERPOLATED.search(b)]
        quoted = (next(g for g in m.group("p", "b", "k", "a", "s") if g is not None)
                  for m in _QUOTED_COMMAND.finditer(code))
        called += [q for q in quoted if q.strip() and not _INTERPOLATED.search(q)]
    commands = tuple(dict.fromkeys(called))[:MAX_COMMANDS]
    return Findings(
        exec=runs,
        dynamic=bool(_DYNAMIC.search(code)),
        network=bool(_NETWORK.search(code)),
        privilege=bool(_PRIVILEGE.search(code)),
        native=bool(_NATIVE.search(code)),
        commands=commands,
    )


def describe(found: Findings) -> tuple[bool, str]:
    """(whether to refuse, why) for risky findings."""
    if found.exec and found.network:
        return True, "inline code wires a process to the network (a remote or bind shell)"
    if found.exec and found.privilege:
        return True, "inline code changes user ids and starts a process"
    if found.native:
        return False, "inline code loads native code"
    if found.exec:
        return False, "inline code starts processes or runs shell commands"
    return False, "inline code evaluates text that cannot be read here"
