"""A delay decided by one character of a command's output: blind exfiltration.

``if [ $(whoami | cut -c 1) = r ]; then sleep 5; fi`` reveals the first letter of ``whoami``
to whoever times the reply, one character per request: the shape of time-based blind command
injection. Each part is harmless alone (a test, a ``sleep``); together, in one line, they are
an oracle. Everyday lines do not compare single characters cut out of a command's output, nor
make a delay hang on that.
"""

from __future__ import annotations

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import ParsedLine
from clawgate.validators.base import Context, LineValidator, register

DELAYS = frozenset({"sleep", "usleep", "ping", "timeout"})
# A few characters of a command's output or of a value: cut -c/-b, head/tail -c, awk's or
# expr's substr, dd with a count, or ${x:N:M}.
_IN = r"(?:[^()]|\([^()]*\))*"  # inside $( ): one level of parentheses (awk's substr(…))
_PIECE = (rf"(?:\$\({_IN}\b(?:cut\s+-[bc]\s*\d|(?:head|tail)\s+-c\s*\d|(?:awk|expr)\b{_IN}"
          rf"\bsubstr\b|dd\b{_IN}\bcount=\d){_IN}\)|`[^`]*\b(?:cut\s+-[bc]\s*\d|(?:head|tail)"
          r"\s+-c\s*\d)[^`]*`|\$\{#?\w+:-?\d+:\d+\})")
_OPERATOR = r"(?:==?|!=|-eq|-ne|-lt|-gt|-le|-ge)"
_LITERAL = r"[\"']?[\w.-]{1,4}[\"']?"
# The piece compared with a short literal, in either order (a test's operator stands between
# blanks: ``x=$(…)`` is an assignment).
_COMPARED = lazy_pattern(rf"{_PIECE}[\"']?\s+{_OPERATOR}\s+{_LITERAL}(?=[\s\];)]|$)"
                         rf"|(?<![\w$]){_LITERAL}\s+{_OPERATOR}\s+[\"']?{_PIECE}")


@register
class DelayOnACharacter(LineValidator):
    """A delay (``sleep``, ``ping``) in a line that compares a character cut out of a command's
    output or a value with a literal: time-based blind exfiltration. ASK.

    Bad: ``time if [ $(whoami|cut -c 1) == s ]; then sleep 5; fi``. Harmless: ``sleep 5``,
    ``[ "$(uname -s | cut -c 1-5)" = Linux ] && make`` (no delay).
    """

    id = "CG-INJ-018"

    def line_shapes(self) -> int:
        return 0  # its first test: a command running a delay

    def line_programs(self) -> frozenset[str]:
        return DELAYS

    def check_line(self, parsed: ParsedLine, ctx: Context) -> Verdict:
        if not any(c.program in DELAYS for c in parsed.commands):
            return NO_OPINION
        found = _COMPARED.search(parsed.source)
        if found is None:
            return NO_OPINION
        return Verdict.ask(self.id, f"a delay decided by {found.group(0)!r}: the time of the "
                           "reply tells a character of the output (blind exfiltration)",
                           hint="compare whole values, or leave the delay out")
