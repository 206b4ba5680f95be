"""The shadow run: a line run by real bash in a hermetic sandbox where every program is a
recorder stub (but for a few pure text tools, which really run so that decoders decode, and
shells, which read their text on), returning every execution bash attempted.

``Shadow().run(line, cwd=…, home=…)`` -> ``ShadowRun(status, executions, texts=…)``; each
``Execution`` has the argv after every expansion, the working directory, the open descriptors
and the exported variables that changed. ``requote(execution)`` writes one back as a line;
``pipelines`` joins the executions a pipe joined. Each ``SourceText`` is a command bash ran
whose text redirects output or names ``/dev/tcp`` (a builtin starts no program to record).

Modules: ``tools`` (which programs really run), ``recorder`` (the stub script), ``sandbox``
(the bwrap command line, the limits, the process), ``records`` (the results and their
reading), ``runner`` (``Shadow``), ``requote``, ``pipes``.
"""

from __future__ import annotations

from clawgate.shell.shadow.records import Descriptor, Execution, ShadowRun, SourceText, Status
from clawgate.shell.shadow.requote import requote
from clawgate.shell.shadow.runner import Shadow
from clawgate.shell.shadow.sandbox import Limits

__all__ = ["Descriptor", "Execution", "Limits", "Shadow", "ShadowRun", "SourceText", "Status",
           "requote"]
