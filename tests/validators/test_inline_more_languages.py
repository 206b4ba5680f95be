"""Table tests of inline code in JavaScript on the JVM (jrunscript, jjs), Julia and Octave, and
of file calls given a URL (a read of ``https://…`` is a fetch, in any language): their file
actions judged as the shell commands they equal, the network reached, everyday code allowed.

These lines are data: they are decided by the engine, never run."""

from __future__ import annotations

import pytest
from vtables import decide

from clawgate.decision import Outcome
from clawgate.inline.tokens import analyse

NOT_ALLOW = (Outcome.ASK, Outcome.DENY)


@pytest.mark.parametrize("line", [
    # Java's file classes from JavaScript on the JVM, jrunscript's built-ins
    "jrunscript -e 'var r = new java.io.FileReader(\"/etc/shadow\"); print(r.read())'",
    "jrunscript -e 'var w = new java.io.FileWriter(\"/etc/profile\"); w.write(\"x\"); w.close()'",
    "jrunscript -e 'cp(\"http://example.com/a\", \"out.bin\")'",
    "jrunscript -e 'var s = new java.net.Socket(\"example.com\", 80)'",
    "jrunscript -e 'cat(\"/root/.ssh/id_rsa\")'",
    # Julia
    "julia -e 'print(open(f->read(f, String), \"/etc/shadow\"))'",
    "julia -e 'open(\"/etc/profile\", \"a\") do f; write(f, \"x\"); end'",
    "julia -e 'open(f->write(f, \"x\"), somewhere(), \"w\")'",
    "julia -e 'download(\"https://example.com/a\", \"out.bin\")'",
    "julia -e 'using Sockets; connect(\"example.com\", 80)'",
    # Octave
    "octave-cli --eval 'fid = fopen(\"/etc/shadow\"); disp(fgetl(fid))'",
    "octave --eval 'fid = fopen(\"/etc/profile\", \"w\"); fputs(fid, \"x\"); fclose(fid);'",
    "octave-cli --eval 'urlwrite(\"https://example.com/a\", \"out.bin\")'",
    "octave-cli --eval 'system(\"rm -rf ~\")'",
    # a file call given a URL is a fetch
    "php -r '$c = file_get_contents(\"https://example.com/a\"); file_put_contents(\"o\", $c);'",
    "ruby -e 'puts File.read(\"https://example.com/a\")'",
    # a server from inline Python
    "python3 -c 'import socketserver as ss, http.server as s; "
    "ss.TCPServer((\"\", 8000), s.SimpleHTTPRequestHandler).serve_forever()'",
])
def test_inline_code_actions_are_caught(line: str) -> None:
    outcome, rules = decide(line)
    assert outcome in NOT_ALLOW, rules


@pytest.mark.parametrize("line", [
    "jrunscript -e 'print(1 + 1)'",
    "jrunscript -e 'var r = new java.io.FileReader(\"notes.txt\"); print(r.read())'",
    "julia -e 'println(sum(1:10))'",
    "julia -e 'print(read(\"data.txt\", String))'",
    "julia -e 'open(\"out.txt\", \"w\") do f; write(f, \"x\"); end'",
    "octave-cli --eval 'disp(magic(3))'",
    "octave-cli --eval 'x = load(\"data.mat\"); disp(x)  % show it'",
    "php -r 'echo file_get_contents(\"composer.json\");'",
])
def test_harmless_inline_code_is_allowed(line: str) -> None:
    outcome, rules = decide(line)
    assert outcome is Outcome.ALLOW, rules


@pytest.mark.parametrize(("code", "lang"), [
    ('file_get_contents("https://example.com/x")', "php"),
    ('download("http://example.com/x", "o")', "julia"),
    ('urlread("https://example.com")', "octave"),
    ('new java.net.URL("https://example.com").openStream()', "jvmjs"),
])
def test_network_is_seen(code: str, lang: str) -> None:
    assert analyse(code, lang).network


# Go source written on a line and then run with go run: its file actions and processes are
# checked as the commands doing the same; the network asks
@pytest.mark.parametrize(("line", "expected"), [
    ("printf 'package main\\nimport \"os\"\\nfunc main() { b, _ := os.ReadFile(\"/etc/shadow\");"
     " os.Stdout.Write(b) }\\n' > t.go && go run t.go", Outcome.DENY),
    ("echo -e 'package main\\nimport \"os\"\\nfunc main(){\\n\\tf, _ := "
     "os.OpenFile(\"/etc/profile\", os.O_RDWR|os.O_CREATE, 0644)\\n\\tf.Close()\\n}' > w.go;"
     " go run w.go", Outcome.DENY),
    ("echo 'package main\nimport \"os/exec\"\nfunc main() { exec.Command(\"rm\", \"-rf\", \"/\")"
     ".Run() }' > x.go; go run x.go", Outcome.DENY),
    ("echo 'package main\nimport \"net\"\nfunc main() { net.Dial(\"tcp\", \"example.com:80\") }'"
     " > n.go; go run n.go", Outcome.ASK),
])
def test_go_written_then_run(line: str, expected: Outcome) -> None:
    outcome, rules = decide(line)
    assert outcome is expected, rules


@pytest.mark.parametrize("line", [
    "echo 'package main\nimport \"fmt\"\nfunc main() { fmt.Println(1) }' > m.go && go run m.go",
    "printf 'package main\\nimport \"os\"\\nfunc main() { os.ReadFile(\"go.mod\") }\\n' > r.go;"
    " go run r.go",
    "go run ./cmd/server",
])
def test_ordinary_go_runs_are_allowed(line: str) -> None:
    outcome, rules = decide(line)
    assert outcome is Outcome.ALLOW, rules


def test_a_file_url_is_a_local_file() -> None:
    found = analyse('file_get_contents("file:///etc/hostname")', "php")
    assert not found.network
