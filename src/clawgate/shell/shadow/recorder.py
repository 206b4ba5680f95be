"""The recorder stub and the start-up file of the shadow's shells, as text.

The recorder is a bash script run by the real bash at a private path (``/.clawgate-shadow``,
outside every directory on the line's ``PATH``), started with ``-p``: no ``BASH_ENV``, no
functions exported by the line (``printf() { …; }; export -f printf`` cannot change what the
recorder writes). It needs no other program of the system but ``find``, also at its private
path, which prints where each open descriptor points.

One record is one file in the trace directory, named by the time and the recorder's pid, of
NUL-separated fields: ``d:`` the shell depth, ``c:`` the working directory, ``p:`` the
program as bash started it (a bare name for a program found in a system directory), ``a:``
each argument, ``e:`` each exported variable that differs from the sandbox's own start,
``m:`` each open descriptor's flags (octal, from ``/proc/<pid>/fdinfo``), ``f:`` each open
descriptor's target.

``command_not_found_handle``, defined in the start-up file every non-interactive bash of the
shadow reads (``BASH_ENV``), records the programs that no system directory holds. The bash that
reads ``sh -c`` text in POSIX mode reads it too (it is put in POSIX mode at the file's end):
the commands of that text are recorded as those of ``bash -c`` text are. dash reads no start-up
file: what it runs is recorded by the stubs alone.

The trace directory is writable by the line (the recorder runs as the line's own user): a
line that empties or forges records there can only lose the shadow's opinion or make itself
stricter, never change the static reading the opinion is added to.
"""

from __future__ import annotations

from collections.abc import Mapping

from clawgate.shell.shadow.records import MAX_TEXTS, TEXT_SUFFIX
from clawgate.shell.shadow.tools import SHELL_READERS, STUB_DIRS, TEXT_TOOLS

ROOT = "/.clawgate-shadow"
RECORDER = f"{ROOT}/recorder"
PRELUDE = f"{ROOT}/prelude"
REAL = f"{ROOT}/real"
TRACE = f"{ROOT}/trace"
_NAME_STARTS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
POSIX_FLAG = "__CG_POSIX"  # a shell reader the start-up file puts in POSIX mode (``_started``)
IGNORED_ENV = ("PWD", "OLDPWD", "SHLVL", "_", "BASH_ENV", "__CG_DEPTH", "__CG_NF", "__CG_HOME",
               POSIX_FLAG)

_TEMPLATE = r"""#!@REAL@/bash -p
# clawgate shadow recorder: records one execution; a text tool or a shell then runs for real
[ -z "${BASH_VERSION-}" ] && return 0 2>/dev/null
[[ ${BASH_SOURCE[0]} != "$0" ]] && return 0 2>/dev/null
__cg_prog=$0
if [[ ${__CG_NF-} == 1 ]]; then __cg_prog=$1; shift; fi
unset __CG_NF
__cg_system=0
case $__cg_prog in
  @STUB_GLOBS@) __cg_system=1; __cg_name=${__cg_prog##*/} ;;
  *) __cg_name=$__cg_prog ;;
esac
__cg_rec=@TRACE@/${EPOCHREALTIME/./}.$$
declare -A __cg_base=(@BASE@)
__cg_base[HOME]=${__CG_HOME-}
__cg_out=("d:${__CG_DEPTH:-0}" "c:$PWD" "p:$__cg_name")
for __cg_a in "$@"; do __cg_out+=("a:$__cg_a"); done
for __cg_v in @EVERY_NAME@; do  # every variable, no subshell; the exported ones kept
  [[ ${!__cg_v@a} == *x* ]] || continue
  case $__cg_v in @IGNORED@) continue ;; esac
  if [[ ${__cg_base[$__cg_v]+set} == set && ${__cg_base[$__cg_v]} == "${!__cg_v}" ]]; then
    continue
  fi
  __cg_out+=("e:$__cg_v=${!__cg_v}")
done
for __cg_f in /proc/$$/fd/*; do
  __cg_f=${__cg_f##*/}
  [[ $__cg_f == 255 || ! -e /proc/$$/fdinfo/$__cg_f ]] && continue
  exec {__cg_h}<"/proc/$$/fdinfo/$__cg_f" || continue
  while builtin read -r -u "$__cg_h" __cg_k __cg_val; do
    [[ $__cg_k == flags: ]] && __cg_out+=("m:$__cg_f=$__cg_val")
  done
  exec {__cg_h}<&-
done
builtin printf '%s\0' "${__cg_out[@]}" > "$__cg_rec"
@REAL@/find "/proc/$$/fd/" -mindepth 1 -maxdepth 1 ! -name 255 -printf 'f:%f=%l\0' \
  >> "$__cg_rec" 2>/dev/null
(( __cg_system )) || exit 0
case $__cg_name in
@SHELLS@
  sed)
    for __cg_a in "$@"; do
      case $__cg_a in --in-place*|--i*) exit 0 ;; --*) ;; -*i*) exit 0 ;; esac
    done
    exec @REAL@/sed --sandbox "$@" ;;
  awk|gawk|mawk|nawk)
    for __cg_a in "$@"; do
      case $__cg_a in -f*|--file*|*system*|*getline*|*'>'*|*'|'*) exit 0 ;; esac
    done
    [[ -x @REAL@/$__cg_name ]] || __cg_name=awk
    [[ -x @REAL@/$__cg_name ]] || __cg_name=mawk
    [[ -x @REAL@/$__cg_name ]] && exec @REAL@/$__cg_name "$@" ;;
  @TOOLS@)
    [[ -x @REAL@/$__cg_name ]] && exec @REAL@/$__cg_name "$@" ;;
esac
exit 0
"""

_SHELL_CASE = r"""  {names})
    (( ${{__CG_DEPTH:-0}} < {depth} )) || exit 0
    export __CG_DEPTH=$(( ${{__CG_DEPTH:-0}} + 1 ))
    __cg_c=0
    for __cg_a in "$@"; do
      case $__cg_a in --) break ;; --*) ;; -*c*) __cg_c=1; break ;; -*) ;; *) break ;; esac
    done
{readers}
    exit 0 ;;"""


def recorder_text(base_env: Mapping[str, str], max_depth: int) -> str:
    """The recorder script, for a sandbox started with ``base_env`` and shells followed
    ``max_depth`` levels deep."""
    base = " ".join(f"[{_quote(k)}]={_quote(v)}" for k, v in sorted(base_env.items()))
    text = (_TEMPLATE.replace("@STUB_GLOBS@", "|".join(f"{d}/*" for d in STUB_DIRS))
            .replace("@BASE@", base)
            .replace("@IGNORED@", "|".join(IGNORED_ENV))
            .replace("@EVERY_NAME@", " ".join(f"${{!{c}*}}" for c in _NAME_STARTS))
            .replace("@SHELLS@", _shell_cases(max_depth))
            .replace("@TOOLS@", "|".join(sorted(TEXT_TOOLS - {"sed", "awk", "gawk", "mawk",
                                                              "nawk"}))))
    return text.replace("@TRACE@", TRACE).replace("@REAL@", REAL)


def _shell_cases(max_depth: int) -> str:
    """One case per group of shells that share their readers."""
    groups: dict[tuple[tuple[str, ...], ...], list[str]] = {}
    for name, readers in SHELL_READERS.items():
        groups.setdefault(readers, []).append(name)
    cases = []
    for readers, names in groups.items():
        first = f"    {_started(readers[0])} \"$@\""
        more = [f"    (( __cg_c )) && {_started(r)} \"$@\"" for r in readers[1:]]
        cases.append(_SHELL_CASE.format(names="|".join(names), depth=max_depth,
                                        readers="\n".join([first, *more])))
    return "\n".join(cases)


def _started(reader: tuple[str, ...]) -> str:
    """How the recorder starts a shell reader. bash in POSIX mode reads no start-up file when
    it is not interactive (``BASH_ENV`` neither), so its text would go unrecorded: it is
    started as bash, and the start-up file switches it to POSIX mode once it has set the
    shadow's hooks up (before the text is read)."""
    if reader == ("bash", "--posix"):
        return f"{POSIX_FLAG}=1 @REAL@/bash"
    return f"@REAL@/{' '.join(reader)}"


# Every simple command a shadow's bash runs passes this DEBUG trap (inherited by functions,
# substitutions and subshells: ``set -T``). Builtins start no program for the recorder to
# see, so a command whose text redirects output or names /dev/tcp or /dev/udp has its text
# recorded, once per text and process, at most MAX_TEXTS times; ``$_`` is kept (the trap's
# last word restores it) and ``$?`` bash keeps itself.
_PRELUDE = r"""command_not_found_handle() { __CG_NF=1 @RECORDER@ "$@"; }
declare -A __cg_said=()
__cg_note() {
  [[ $BASH_COMMAND == *'>'* || $BASH_COMMAND == */dev/[tu][cd]p/* ]] || return 0
  [[ -z ${__cg_said[$BASH_COMMAND]+x} ]] && (( ${#__cg_said[@]} < @MAX@ )) || return 0
  __cg_said[$BASH_COMMAND]=1
  builtin printf '%s\0' "d:${__CG_DEPTH:-0}" "c:$PWD" "t:$BASH_COMMAND" \
    > "@TRACE@/${EPOCHREALTIME/./}.$BASHPID@SUFFIX@" 2>/dev/null
  return 0
}
set -T
trap '__cg_u=$_; __cg_note; : "$__cg_u"' DEBUG
if [[ ${@POSIX@-} == 1 ]]; then unset @POSIX@; set -o posix; fi
"""


def prelude_text() -> str:
    """What every non-interactive bash of the shadow reads first (``BASH_ENV``): the handler
    that records programs found nowhere, and the trap that records command texts."""
    return (_PRELUDE.replace("@RECORDER@", RECORDER).replace("@TRACE@", TRACE)
            .replace("@MAX@", str(MAX_TEXTS)).replace("@SUFFIX@", TEXT_SUFFIX)
            .replace("@POSIX@", POSIX_FLAG))


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
