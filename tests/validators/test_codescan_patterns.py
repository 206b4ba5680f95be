"""The process-call pattern of ``codescan`` is written for speed (every alternative starts with
a literal character): it finds exactly what its plain ``\\b`` spelling finds."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clawgate.validators.codescan import _EXEC
from clawgate.validators.credentials import HINT

PLAIN = re.compile(r"""
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

_PIECES = ["os", ".", "system", "popen", "exec", "execve", "spawn", "fork", "subprocess", "pty",
           "commands", "getoutput", "platform", "child_process", "execSync", "execFile",
           "process", "binding", "Deno", "Command", "run", "Bun", "$", "shell_exec", "Kernel",
           ":", "`", "IO", "Open3", "PTY", "Process", "Runtime", "getRuntime", "System",
           "run-program", "shell-command", "(", "term", "shell", "call", "-process", "syscmd",
           "pipeline", "sh", '"', "'", "qx", "%x", "%", "open", "|", "-|", "|-", ";", "unix",
           "remove", "shutil", "rmtree", "do", " ", "\n", "a", "_", "é", "1", "-", "x"]


def _found(match: re.Match[str] | None) -> int | None:
    return None if match is None else match.start()


@pytest.mark.parametrize("text", [
    "os.system('id')", "xos.system('id')", "import subprocess", "my_subprocess", "fork()",
    "fork.x", "a%x(id)", " %x(id)", "qx(id)", "aqx(id)", "run(`id`)", ".run(`id`)", "xrun(`id`)",
    "open(F, \"ls |\")", "'-|'", "\"|-\"", "(shell)", "Runtime.getRuntime().exec(c)",
    "ProcessBuilder", "é_os.system", "éos.system", "do shell script \"id\"", "print('hi')", "",
])
def test_the_literal_led_pattern_finds_what_the_plain_one_finds(text: str) -> None:
    assert _found(_EXEC.search(text)) == _found(PLAIN.search(text))


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join) | st.text(max_size=30))
def test_the_two_spellings_agree_on_any_text(text: str) -> None:
    assert _found(_EXEC.search(text)) == _found(PLAIN.search(text))


@pytest.mark.parametrize(("word", "found"), [
    ("~/.mozilla/firefox/x/logins.json", 3), ("Library/Firefox/Profiles", 8), ("FIREFOX", None),
    ("~/.ssh/id_rsa", 2), ("notes.txt", None), ("", None),
])
def test_the_literal_led_credential_hint_finds_the_same(word: str, found: int | None) -> None:
    plain = re.compile(HINT.pattern.replace("Firefox|firefox", "[Ff]irefox"))
    assert _found(HINT.search(word)) == _found(plain.search(word)) == found


@pytest.mark.parametrize("line", ["ls -l", "echo \\x", "echo `id`", "ls # x", "a{b,c}", "!x",
                                  "a\nb", "a^b", "echo $'x'", 'echo $"x"', "echo $(id)",
                                  "diff <(a) >(b)", "echo $x", "a < b", ""])
def test_the_second_opinion_trigger_finds_what_its_class_led_spelling_finds(line: str) -> None:
    from clawgate.validators.parsing import _SECOND_OPINION

    plain = re.compile(r"""[\\`#{}!\n^]|\$['"(]|[<>]\(""")
    found, expected = _SECOND_OPINION.search(line), plain.search(line)
    assert (found and found.span()) == (expected and expected.span())
