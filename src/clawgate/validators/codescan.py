"""Reading inline program text for what matters to a gate: does it start processes, open
sockets, change user ids or load native code? And which shell commands does it spell out?"""

from __future__ import annotations

import re

from clawgate.lazyre import lazy_pattern
from clawgate.records import record
from clawgate.validators.programs import SHELL_REFERENCE

# Starting a process or running shell text, across the usual scripting languages.
_EXEC = lazy_pattern(r"""
    \bos\s*\.\s*(?:system|popen|exec\w*|spawn\w*|fork|posix_spawn\w*)\b
  | \bsubprocess\b | \bpty\s*\.\s*spawn\b | \bcommands\s*\.\s*getoutput\b | \bplatform\.popen\b
  | \bchild_process\b | \b(?:execSync|execFileSync|spawnSync|execFile)\b | process\.binding
  | \bDeno\s*\.\s*(?:Command|run)\b | \bBun\s*\.\s*(?:spawn|spawnSync|\$)
  | \b(?:shell_exec|passthru|proc_open|popen|pcntl_exec|proc_nice)\b
  | \bfork\b(?![\w.])
  | \bKernel\s*[.:]+\s*(?:system|exec|spawn|`)\b | \bIO\s*\.\s*popen\b | \bOpen3\b | \bPTY\b
  | \bProcess\s*\.\s*spawn\b | \bRuntime\s*\.\s*getRuntime\b | \bProcessBuilder\b
  | \bos\s*\.\s*execute\b | \bio\s*\.\s*popen\b
  | \b(?:callCommand|readProcess|spawnCommand|rawSystem|runCommand|createProcess)\b
  | \bSystem\.Process\b | \brun-(?:shell-command|program)\b | \bshell-command\b
  | \((?:term|ansi-term|shell|eshell|compile|async-shell-command|vterm)\b
  | \b(?:call|start|make)-process\b | \b(?:esyscmd|syscmd)\b | (?<![\w.])run\s*\(\s*`
  | \bpipeline\s*\(\s*` | \bsh\s*\(\s*["'] | \b(?:qx|%x)\s*[^\w\s]
  | \bopen\s*\([^;"']{0,80}["']\s*\|
  | \bopen\s*\(?[^;|]{0,200}\|\s*["'] | ["']-\|["'] | ["']\|-["'] | \bshell\s*\( | \bunix\s*\(
  | \bos\s*\.\s*(?:remove|unlink|rmdir)\b | \bshutil\s*\.\s*rmtree\b
  | \bdo\s+shell\s+script\b
""", re.X)
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
    r"proc_open|do\s+shell\s+script)"
    r"\s*\(?\s*\[?\s*(?P<q>[\"'])(?P<s>(?:\\.|(?!(?P=q)).){1,400}?)(?P=q)")


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
    runs = bool(_EXEC.search(code) or SHELL_REFERENCE.search(code) or (
        backticks and _BACKTICKS.search(code)) or _EXEC_BARE.search(_STRINGS.sub('""', code)))
    called = [m.group("s") for m in _CALLED.finditer(code)] if runs else []
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
