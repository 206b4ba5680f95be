"""Program tables shared by the injection, wrapper, interpreter and escape families (data only).

Names are basenames as ``SimpleCommand.program`` gives them; versioned interpreter names
(``python3.11``, ``perl5.36``) are folded by ``family_name``.
"""

from __future__ import annotations

import re

from clawgate.lazyre import lazy_pattern


def words_of(text: str) -> frozenset[str]:
    """The whitespace-separated names in ``text``."""
    return frozenset(text.split())


# Shells: programs whose arguments are shell code or a shell script.
SHELLS = words_of("""
sh bash dash zsh ksh mksh pdksh oksh lksh loksh csh tcsh ash fish posh yash elvish rc sash rbash
pwsh powershell nu xonsh ion
""")
# Names that mean "a shell" even as a bare word in an argument (`xargs sh`, `--rsh bash`).
BARE_SHELLS = words_of("sh bash dash zsh ksh mksh csh tcsh ash fish yash pwsh rbash")

# Programs that reach other machines (kept here, apart from the risk tiers, so that the two
# families can change independently).
NETWORK = words_of("""
curl wget ssh scp sftp rsync nc ncat netcat socat telnet ftp ping traceroute dig nslookup host
whois nmap http https aria2c lftp mosh
""")
# Programs that only read: an argument naming a shell is looked at, never run.
READ_ONLY = words_of("""
cat head tail less more ls ll dir tree pwd echo printf wc sort uniq cut tr grep egrep fgrep rg ag
ack find locate which whereis type file stat du df free uptime uname hostname whoami id groups date
cal env printenv diff cmp comm column fold fmt nl od hexdump xxd strings md5sum sha1sum sha256sum
sha512sum cksum b2sum basename dirname realpath readlink jq yq true false test [ [[ seq expr bc
ps pgrep top htop lsof lsblk lscpu lsusb lspci man info help history whatis apropos tldr w who
last finger getent nproc tty sleep yes look rev tac paste join split csplit expand unexpand iconv
""")
# The program names an argument may hold and still only be looked at, never run.
INSPECTORS = READ_ONLY | words_of("""
which whereis type command man info apropos whatis tldr help file stat ls readlink realpath
ldd objdump nm readelf strings hexdump xxd od test [ [[ grep egrep fgrep rg ag ack sed awk gawk
mawk nawk diff cmp du ps pgrep pkill pidof killall tr sort uniq wc head tail less more bat cat
tac nl echo printf basename dirname git chsh cut column paste jq yq find fd locate
""")

# Programs that reach other machines: a shell attached to one is a remote or reverse shell.
NET_TOOLS = NETWORK | words_of("""
nc ncat netcat socat telnet openssl cryptcat pwncat sbd socket busybox
""")

# Programs that turn their input into text that may be code (decoders and de-obfuscators).
DECODERS = words_of("""
base64 base32 basenc xxd uudecode openssl gunzip zcat gzip bzip2 bzcat xz xzcat unxz zstd rev
tr printf od perl python python3 iconv
""")

# Interactive programs with a way to run shell commands from their prompt. Started without a
# file or command they wait for keystrokes; the next lines of a script then become escapes.
INTERACTIVE = words_of("""
ed ex vi vim nvim view rvim emacs nano pico joe jed mg micro mcedit ranger mc nnn lf vifm
screen tmux tmate byobu minicom picocom cu gdb lldb debugfs radare2 r2 ftp sftp psftp tftp
smbclient telnet mysql mariadb psql sqlite3 redis-cli mongo mongosh bconsole ginsh tasksh
tdbtool scanmem iftop opencode asterisk irb ghci jshell scala erl iex sbcl clisp guile racket
tclsh wish expect php lua luajit R julia node nodejs python pypy ruby perl dc octave gnuplot
""")
# Of those, the ones that only edit or page a file they are given: harmless with a file operand.
FILE_VIEWERS = words_of("""
ed ex vi vim nvim view rvim emacs nano pico joe jed mg micro mcedit
""")

# Environment variables that name a program other programs will run.
COMMAND_VARIABLE = lazy_pattern(
    r"(?:PAGER|EDITOR|VISUAL|_COMMAND|_CMD|_EXEC|_PROGRAM|_PROG|_SHELL|_HELPER|_ASKPASS|"
    r"_LAUNCHER|_WRAPPER|_HOOK|_RUNNER|_RSH|_SSH|LESSOPEN|LESSCLOSE|^SHELL|BROWSER|^TERMINAL|"
    r"^DIFFTOOL|^FCEDIT)$")
# Variables that load code into programs whatever their value says.
LOADER_VARIABLES = words_of("""
LD_PRELOAD LD_AUDIT DYLD_INSERT_LIBRARIES BASH_ENV ENV
PROMPT_COMMAND PERL5OPT PERL5DB RUBYOPT NODE_OPTIONS PYTHONSTARTUP
PYTHONINSPECT GIT_EXEC_PATH GIT_CONFIG_PARAMETERS GIT_CONFIG_GLOBAL
GIT_CONFIG GIT_TEMPLATE_DIR GROFF_BIN_PATH AUTOM4TE AUTOCONF AUTOMAKE M4 GCONV_PATH
JAVA_TOOL_OPTIONS _JAVA_OPTIONS PATH GIT_EXTERNAL_DIFF GIT_SSH LESSKEY MANOPT ZDOTDIR
""")
# Values of command variables that are everyday pagers and editors.
HARMLESS_PAGERS = words_of("""
cat less more most bat delta head tail true vim vi nvim nano emacs code subl micro ed
diff-so-fancy view
""")

# Helper programs that options commonly name and that run nothing else: compressors, the
# ssh transport, pagers and editors.
HARMLESS_HELPERS = HARMLESS_PAGERS | words_of("""
gzip gunzip bzip2 xz zstd unzstd lz4 pigz pbzip2 lzip lzma lzop brotli ssh code
""")

_VERSIONED = lazy_pattern(r"^(python|pypy|perl|ruby|php|lua|node|pip|tclsh|wish|guile)[\d.]*$")


def family_name(program: str | None) -> str | None:
    """``python3.11`` -> ``python``; other names unchanged."""
    if not program or not program[-1].isdigit():
        return program
    found = _VERSIONED.match(program)
    return found.group(1) if found else program


# Paths start where a run of path characters starts, and segments are taken whole (possessive),
# so that long words are scanned once, not once per character.
_PATH_SHELL = (r"(?<![\w.~+/-])(?:[\w.~+-]*+/)+(?:bash|dash|zsh|ksh|mksh|pdksh|csh|tcsh|fish|yash"
               r"|posh|pwsh|elvish|sash|rbash|lksh)(?![\w./-])"
               r"|(?<![\w.~+/-])(?:[\w.~+-]*+/)*bin/(?:sh|ash|rc|nu)(?![\w./-])")
_BARE = "|".join(sorted(BARE_SHELLS, key=len, reverse=True))
# A shell named anywhere in a value: as a path, or as a bare name that starts the value or a
# value after ``=`` (``--rsh=bash -c``), or a ``sh -c`` inside a string.
_SHELL_REFERENCE = lazy_pattern(
    rf"{_PATH_SHELL}|(?:^|[=;&|(`{{:,]|\s)(?:{_BARE})"
    r"(?=$|\s*[;|&<>)`}#]|\s+\d*[<>]|\s+-\w*[cisp]\b)")


class _ShellReference:
    """``SHELL_REFERENCE.search``: its necessary substrings looked for first. Every shell it
    names as a path or a bare word holds "sh", and the path to the others (``/bin/rc``) holds
    "bin/": a text with neither names none, and is not scanned position by position."""

    __slots__ = ()

    def search(self, text: str) -> re.Match[str] | None:
        if "sh" not in text and "bin/" not in text:
            return None
        return _SHELL_REFERENCE.search(text)


SHELL_REFERENCE = _ShellReference()
BARE_SHELL_WORD = lazy_pattern(rf"(?:{_BARE})(?:\s|$)")


# Web browsers, the everyday value of ``BROWSER`` (which programs open a URL with).
HARMLESS_BROWSERS = words_of("""
firefox chromium chromium-browser google-chrome google-chrome-stable brave-browser
microsoft-edge w3m lynx links elinks xdg-open open wslview sensible-browser x-www-browser
www-browser
""")


def harmless_command(value: str) -> bool:
    """A pager, editor or browser setting that names an everyday program (``PAGER=cat``,
    ``EDITOR=vim``, ``BROWSER=firefox``, ``LESSOPEN='|lesspipe %s'``) and nothing else: no
    shell syntax, no other program."""
    body = value.lstrip("|")  # LESSOPEN='|lesspipe %s': the leading bar says "read its output"
    head = body.split()
    if not head or any(ch in body for ch in ";&|`$()<>#\n"):
        return False  # a pipeline, a list, a substitution: shell code, not one program
    if "/" in head[0] and not head[0].startswith(("/usr/", "/bin/")):
        return False  # ./less runs the file at that place, not the pager (program identity)
    return head[0].rsplit("/", 1)[-1] in HARMLESS_PAGERS | HARMLESS_BROWSERS | {
        "lesspipe", "lesspipe.sh", "lessfile"}
