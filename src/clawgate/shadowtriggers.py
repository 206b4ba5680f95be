"""When a line gets a shadow run (``shadowing.py``): the reasons of its static reading that say
it hides what it runs -- a program known only at run time, ``eval``/``source`` or a shell fed
text known only at run time, text piped or fed into a shell, text decoded or obfuscated, a
wrapper whose command is computed, a line the parsers cannot read alike. A line already DENY
is not shadowed: nothing can be stricter. Light on purpose: the engine reads it for every
line that has reasons.
"""

from __future__ import annotations

from collections.abc import Iterable

from clawgate.decision import Outcome, Reason

SHADOW_ID = "CG-SHADOW-001"  # a program bash would run is not ALLOW, written out
SHADOW_NOTE_ID = "CG-SHADOW-002"  # the trace's note of each shadow run and how it ended
SHADOW_TRIGGERS = frozenset({
    "CG-INJ-001",  # the program is known only at run time ($x args, "$@", ${cmd})
    "CG-INJ-008",  # text piped into a shell or interpreter
    "CG-INJ-009",  # a here-document or here-string fed to a shell
    "CG-INJ-010",  # eval / source / trap of text known only at run time
    "CG-INJ-011",  # text decoded at run time inside a substitution
    "CG-WRAP-001", "CG-WRAP-002", "CG-WRAP-003",  # a wrapper or sh -c whose command is computed
    "CG-OBF-001", "CG-OBF-002", "CG-OBF-003",  # obfuscated names and payloads
    "CG-PARSE-001", "CG-DIFF-001",  # the readers cannot read it, or read it apart
})


def hides_what_it_runs(reasons: Iterable[Reason], outcome: Outcome) -> bool:
    """The trigger: the static reading is not DENY and one of its reasons says that what
    runs is computed, fed, decoded, obfuscated or misread."""
    return outcome is not Outcome.DENY and any(r.rule_id in SHADOW_TRIGGERS for r in reasons)
