"""Files an ordinary command runs without naming them: test configuration, build scripts, task
runners' files, tools' config files that are code, credential plugins.

``pytest`` imports ``conftest.py`` and the ``test_*.py`` files, ``make`` runs the Makefile's
recipes, ``npm test`` runs ``package.json``'s scripts, ``npx jest`` loads ``jest.config.js``,
``kubectl`` runs a kubeconfig's ``exec`` plugin, ``aws`` a profile's ``credential_process``,
``cargo make`` a ``Makefile.toml``'s tasks, ``poe`` a ``pyproject.toml``'s.
One table says, per file name, which programs run it and how its text reads: as code of a
language (checked as that interpreter's inline code), or as the shell command lines it holds.
``staged.py`` uses it for text written to such a file earlier on the same line: that text is
judged as what the later command runs; text that cannot be read is unknown (ASK there).
"""

from __future__ import annotations

import configparser
import json
import posixpath
import re
import shlex
from collections.abc import Callable, Iterator

from clawgate.decision import MayRun
from clawgate.lazyre import lazy_pattern
from clawgate.records import record
from clawgate.shell import parse
from clawgate.shell.model import SimpleCommand
from clawgate.validators.indexsettings import npmrc_installs, pipconf_installs
from clawgate.validators.scriptfiles import recipes
from clawgate.validators.tomltasks import cargo_make_tasks, poe_tasks

Reader = Callable[[str], "list[str] | None"]  # text -> the command lines it runs, None: unknown

_JS_TOOLS = frozenset({"jest", "vite", "vitest", "webpack", "webpack-cli", "rollup", "babel",
                       "next", "nuxt", "astro", "eslint", "prettier", "stylelint", "tsup",
                       "grunt", "gulp", "mocha", "karma", "playwright", "cypress", "postcss",
                       "tailwindcss", "svelte-kit", "remix", "craco", "commitlint",
                       "lint-staged", "ng", "vue-cli-service", "react-scripts", "expo"})
_JS_MANAGERS = frozenset({"npm", "yarn", "pnpm", "bun", "npx", "bunx", "pnpx"})
_TEST_RUNNERS = frozenset({"pytest", "py.test", "tox", "nox"})
_PIP_LIKE = frozenset({"pip", "pip3", "uv", "pipx", "pdm", "poetry", "hatch", "build"})
_LOCAL_OPERANDS = frozenset({".", "./", "-e", "--editable"})
# Launchers whose next operand is the program that runs: npx jest, uv run pytest, python -m X.
_LAUNCHERS = {"npx": 1, "bunx": 1, "pnpx": 1, "uv": 2, "poetry": 2, "pipenv": 2, "hatch": 2,
              "pdm": 2, "bundle": 2, "pnpm": 2, "yarn": 2}
_LAUNCH_VERBS = frozenset({"run", "exec", "dlx"})
_SHELL_VALUE = lazy_pattern(r"\$\(shell\s+([^)]*)\)")
_BACKTICK = lazy_pattern(r"`([^`]*)`")


def invoked(cmd: SimpleCommand) -> frozenset[str]:
    """The names of the programs ``cmd`` starts: its own, and the one a launcher runs
    (``npx jest``, ``uv run pytest``, ``bundle exec rake``, ``python -m pytest``).

    A line's commands are each asked about every file the line wrote before them (staged.py):
    the latest answer is kept by the command object (frozen, so it holds)."""
    last = _invoked[0]  # one read: another thread may replace it meanwhile
    if last[0] is cmd:
        return last[1]
    found = _invoked_by(cmd)
    _invoked[0] = (cmd, found)  # holding cmd keeps its id from being reused meanwhile
    return found


_invoked: list[tuple[SimpleCommand | None, frozenset[str]]] = [(None, frozenset())]


def _invoked_by(cmd: SimpleCommand) -> frozenset[str]:
    values = [w.value or "" for w in cmd.words]
    if not values:
        return frozenset()
    names = {posixpath.basename(values[0])}
    head = posixpath.basename(values[0])
    operands = [v for v in values[1:] if not v.startswith("-")]
    position = _LAUNCHERS.get(head)
    if position == 1 and operands:
        names.add(posixpath.basename(operands[0]))
    elif position == 2 and len(operands) > 1 and operands[0] in _LAUNCH_VERBS:
        names.add(posixpath.basename(operands[1]))
    if head.startswith("python") and "-m" in values[1:]:
        at = values.index("-m")
        if at + 1 < len(values):
            names.add(values[at + 1].split(".")[0])
    return frozenset(names)


def _python(text: str) -> list[str] | None:
    return [f"python3 -c {shlex.quote(text)}"]


def _node(text: str) -> list[str] | None:
    return [f"node -e {shlex.quote(text)}"]


def _ruby(text: str) -> list[str] | None:
    return [f"ruby -e {shlex.quote(text)}"]


# Rake's and fastlane's ``sh 'CMD'`` (FileUtils#sh): a shell line, not Ruby the reader follows
_RUBY_SH = lazy_pattern(r"""(?m)(?:^|[\s;{(])sh\s*\(?\s*(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)')""")


def _ruby_tasks(text: str) -> list[str] | None:
    """A Rakefile or Fastfile: its Ruby, and the shell line each ``sh`` call is given."""
    return [f"ruby -e {shlex.quote(text)}", *rake_shell_lines(text)]


def rake_shell_lines(text: str) -> list[str]:
    """The shell line each ``sh "…"`` call of Rake's (or fastlane's) Ruby DSL is given."""
    return [m.group(1) or m.group(2) or "" for m in _RUBY_SH.finditer(text)]


def _shell(text: str) -> list[str] | None:
    return [text]


def _unknown(text: str) -> list[str] | None:
    return None  # a language no reader here follows (Groovy, Kotlin, Rust build scripts)


def _make(text: str) -> list[str] | None:
    """Recipes, and ``$(shell …)`` anywhere: make runs those while it reads the file."""
    return recipes(text) + _SHELL_VALUE.findall(text)


def _just(text: str) -> list[str] | None:
    """A justfile's recipe bodies (indented lines) and backtick evaluations."""
    lines = [line.strip().lstrip("@-") for line in text.split("\n") if line[:1] in (" ", "\t")]
    return [line for line in lines if line] + _BACKTICK.findall(text)


def _package_scripts(text: str) -> list[str] | None:
    """Every script of a ``package.json``: install, test and run each start some of them."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    scripts = data.get("scripts", {}) if isinstance(data, dict) else None
    if not isinstance(scripts, dict) or not all(isinstance(v, str) for v in scripts.values()):
        return None
    return list(scripts.values())


def _tox(text: str) -> list[str] | None:
    """The ``commands*`` lines of every tox environment."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return [line.strip() for section in parser.sections()
            for key, value in parser.items(section) if key.startswith("commands")
            for line in value.split("\n") if line.strip()]


def _yaml(text: str) -> object | None:
    import yaml  # only for a file the line writes: `policy check` stays free of YAML

    try:
        data: object = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    return data


def _pre_commit(text: str) -> list[str] | None:
    """Local hooks' ``entry`` lines; a hook from another repository is code fetched to run."""
    data = _yaml(text)
    repos = data.get("repos") if isinstance(data, dict) else None
    if not isinstance(repos, list):
        return None
    found: list[str] = []
    for repo in repos:
        if not isinstance(repo, dict) or repo.get("repo") not in ("local", "meta"):
            return None
        for hook in repo.get("hooks") or []:
            entry = hook.get("entry") if isinstance(hook, dict) else None
            if entry is not None:
                args = hook.get("args") or []
                found.append(" ".join([str(entry), *(shlex.quote(str(a)) for a in args)]))
    return found


def _exec_plugins(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        plugin = node.get("exec")
        if isinstance(plugin, dict) and "command" in plugin:
            args = plugin.get("args") or []
            yield " ".join(shlex.quote(str(p)) for p in [plugin["command"], *args])
        for value in node.values():
            yield from _exec_plugins(value)
    elif isinstance(node, list):
        for value in node:
            yield from _exec_plugins(value)


def _kubeconfig(text: str) -> list[str] | None:
    """Credential plugins: ``exec: {command: …, args: […]}`` anywhere in the file."""
    data = _yaml(text)
    if data is None and text.strip():
        return None
    return list(_exec_plugins(data))


def _procfile(text: str) -> list[str] | None:
    """``name: command`` lines of a Procfile."""
    return [line.partition(":")[2].strip() for line in text.split("\n")
            if ":" in line and not line.lstrip().startswith("#") and line.partition(":")[2].strip()]


def _taskfile(text: str) -> list[str] | None:
    """go-task's ``cmds`` of every task: strings, or ``{cmd: …}``."""
    data = _yaml(text)
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        return None
    found: list[str] = []
    for task in tasks.values():
        commands = (task.get("cmds") or []) if isinstance(task, dict) else (
            task if isinstance(task, list) else [])
        for command in commands:
            line = command.get("cmd") if isinstance(command, dict) else command
            if isinstance(line, str):
                found.append(line)
            elif isinstance(command, dict) and "task" not in command:
                return None
    return found


def _json_commands(key: str) -> Reader:
    """The string values (or lists of strings) under ``key`` of a JSON file: deno's
    ``tasks``, composer's ``scripts``."""
    def read(text: str) -> list[str] | None:
        try:
            data = json.loads(text)
        except ValueError:
            return None
        table = data.get(key, {}) if isinstance(data, dict) else None
        if not isinstance(table, dict):
            return None
        found: list[str] = []
        for value in table.values():
            for line in value if isinstance(value, list) else [value]:
                if not isinstance(line, str):
                    return None
                found.append(line)
        return found
    return read


_CMAKE_COMMAND = lazy_pattern(r"(?i)\b(?:execute_process|add_custom_command|add_custom_target)"
                              r"\s*\(([^)]*)\)")
_CMAKE_KEYWORD = lazy_pattern(r"^[A-Z_]{3,}$")


def _cmake(text: str) -> list[str] | None:
    """The ``COMMAND`` lines of ``execute_process`` (run while CMake configures) and of custom
    commands and targets (run by the build)."""
    found: list[str] = []
    for call in _CMAKE_COMMAND.findall(text):
        try:
            words = shlex.split(call, comments=False)
        except ValueError:
            return None
        current: list[str] | None = None
        for word in words:
            if word == "COMMAND":
                if current:
                    found.append(shlex.join(current))
                current = []
            elif _CMAKE_KEYWORD.match(word) and word not in ("ALL",):
                if current:
                    found.append(shlex.join(current))
                current = None
            elif current is not None:
                current.append(word)
        if current:
            found.append(shlex.join(current))
    if "${" in " ".join(found):
        return None  # a variable only CMake knows
    return found


_CREDENTIAL_PROCESS = lazy_pattern(r"(?m)^\s*credential_process\s*=\s*(.+)$")


def _aws_config(text: str) -> list[str] | None:
    return [found.strip() for found in _CREDENTIAL_PROCESS.findall(text)]


@record(frozen=True, slots=True)
class RunFile:
    """Files named ``pattern`` (matched on the path), run by ``runners`` and read by ``reader``;
    ``local`` runners only when the command names the project itself (``pip install -e .``);
    ``when_written``: what the text will run is judged when it is written (``staged.py``)."""

    pattern: re.Pattern[str]
    runners: frozenset[str]
    reader: Reader
    local: bool = False
    when_written: bool = True  # judged when written, whether or not the line runs it


def _file(pattern: str, runners: frozenset[str] | set[str], reader: Reader,
          local: bool = False, when_written: bool = True) -> RunFile:
    return RunFile(re.compile(r"(?:^|/)(?:" + pattern + r")$"), frozenset(runners), reader,
                   local, when_written)


_SCRIPT_RUNNERS = frozenset({"make", "gmake", "just", "task", "tox", "nox", "rake", "bats",
                             "pre-commit", "lefthook"})


_JS_CONFIG = (r"(?:[\w-]+\.config|\.eslintrc|\.prettierrc|\.mocharc|\.babelrc|Gruntfile|"
              r"gulpfile)\.[cm]?[jt]s")
TABLE: tuple[RunFile, ...] = (
    _file(r"conftest\.py|test_[\w-]*\.py|[\w-]+_test\.py", _TEST_RUNNERS, _python),
    _file(r"setup\.py", _PIP_LIKE, _python, local=True),
    _file(r"noxfile\.py", {"nox"}, _python),
    _file(r"dodo\.py", {"doit"}, _python),
    _file(r"tasks\.py", {"invoke", "inv"}, _python),
    _file(r"fabfile\.py", {"fab"}, _python),
    _file(r"(?:GNU)?[Mm]akefile", {"make", "gmake", "remake"}, _make),
    _file(r"\.?[Jj]ustfile", {"just"}, _just),
    _file(r"package\.json", _JS_MANAGERS, _package_scripts),
    _file(_JS_CONFIG, _JS_TOOLS | _JS_MANAGERS, _node),
    _file(r"[Rr]akefile(?:\.rb)?|[\w-]+\.rake", {"rake"}, _ruby_tasks),
    _file(r"Gemfile", {"bundle", "bundler"}, _ruby),
    _file(r"(?:build|settings)\.gradle(?:\.kts)?", {"gradle", "gradlew"}, _unknown),
    _file(r"build\.rs", {"cargo"}, _unknown),
    _file(r"Vagrantfile", {"vagrant"}, _ruby),
    _file(r"Fastfile", {"fastlane"}, _ruby_tasks),
    _file(r"Podfile", {"pod"}, _ruby),
    _file(r"Brewfile", {"brew"}, _ruby),
    _file(r"Guardfile", {"guard"}, _ruby),
    _file(r"Capfile", {"cap"}, _ruby),
    _file(r"Dangerfile", {"danger"}, _ruby),
    _file(r"CMakeLists\.txt|[\w-]+\.cmake", {"cmake", "ccmake"}, _cmake),
    _file(r"Procfile(?:\.\w+)?", {"honcho", "foreman", "heroku", "overmind", "hivemind"},
          _procfile),
    _file(r"[Tt]askfile\.ya?ml", {"task", "go-task"}, _taskfile),
    _file(r"Makefile\.toml", {"cargo", "cargo-make", "makers"}, cargo_make_tasks),
    _file(r"pyproject\.toml", {"poe", "poethepoet"}, poe_tasks),
    _file(r"deno\.jsonc?", {"deno"}, _json_commands("tasks")),
    _file(r"composer\.json", {"composer"}, _json_commands("scripts")),
    _file(r"\.envrc", {"direnv"}, _shell),
    # package-index settings: judged as the installs they amount to (indexsettings.py)
    _file(r"\.npmrc", _JS_MANAGERS, npmrc_installs),
    _file(r"pip\.conf|pip\.ini", _PIP_LIKE, pipconf_installs),
    # the program a tool runs in its own place: yarn's release (what yarnPath names), the
    # Gradle and Maven wrappers' jars and distribution settings, a virtualenv's interpreter
    # and the settings that name it, a package's executables. Their text is no language read
    # here; a line that downloads one and then runs its tool runs code unread (fetchedrun.py)
    _file(r"\.yarn/releases/[\w.-]+\.c?js", {"yarn"}, _unknown, when_written=False),
    _file(r"gradle/wrapper/gradle-wrapper\.(?:jar|properties)", {"gradlew", "gradle"},
          _unknown, when_written=False),
    _file(r"\.mvn/wrapper/maven-wrapper\.(?:jar|properties)", {"mvnw"}, _unknown,
          when_written=False),
    _file(r"\.?venv/bin/python[\d.]*|\.?venv/pyvenv\.cfg",
          _TEST_RUNNERS | _PIP_LIKE | {"python", "python3"}, _unknown, when_written=False),
    _file(r"node_modules/\.bin/[\w.-]+", _JS_MANAGERS | _JS_TOOLS, _unknown,
          when_written=False),
    # a shell script, run by the project's task runners (a package script, a recipe, a tox
    # command) and hook managers without being named on the line; run by name it is
    # staged.py's. Written alone it is not judged: a script is often written for elsewhere (a
    # container, a CI image) and is judged where it runs.
    _file(r"[\w.-]+\.(?:sh|bash|zsh)", _JS_MANAGERS | _SCRIPT_RUNNERS, _shell,
          when_written=False),
    _file(r"\.husky/[\w-]+", {"git", "husky"}, _shell, when_written=False),
    _file(r"tox\.ini", {"tox"}, _tox),
    _file(r"\.pre-commit-config\.yaml", {"pre-commit"}, _pre_commit),
    _file(r"\.kube/config|kubeconfig(?:\.ya?ml)?",
          {"kubectl", "helm", "k9s", "oc", "kubectx", "kubens", "stern", "flux", "argocd"},
          _kubeconfig),
    _file(r"\.aws/(?:config|credentials)",
          {"aws", "sam", "cdk", "eksctl", "terraform", "tofu", "copilot"}, _aws_config),
)


# Whether any entry of TABLE names a path (each is ``(?:^|/)(?:NAME)$``, _file): one search
# where the table would take one per entry (~33); most paths a line writes are no such file.
_ANY_RUN_FILE = lazy_pattern(r"(?:^|/)(?:" + "|".join(
    entry.pattern.pattern[len("(?:^|/)"):-1] for entry in TABLE) + r")$")


def is_run_file(path: str) -> bool:
    """``path`` is a file some ordinary command of a project runs (an entry of ``TABLE``)."""
    return _ANY_RUN_FILE.search(path) is not None


def reader_for(cmd: SimpleCommand, path: str, extra: tuple[RunFile, ...] = ()) -> Reader | None:
    """How the text of ``path`` reads when ``cmd`` runs it without naming it, or None when
    ``cmd`` does not run it; ``extra``: files the line's own configuration names
    (``project_files``)."""
    names = invoked(cmd)
    for entry in (*TABLE, *extra):
        if names & entry.runners and entry.pattern.search(path):
            if entry.local and not _names_project(cmd) and "build" not in names:
                continue
            return entry.reader
    return None


_LANGUAGE: dict[Reader, str] = {_python: "python", _node: "js", _ruby: "ruby"}


def written_actions(path: str, text: str) -> list[str]:
    """What text written to ``path`` will do when the project's ordinary commands run it
    later, judged when it is written: the command lines a file of command lines holds
    (recipes, scripts, tox commands, credential plugins); for a file of code, the literal
    actions of that code (the processes it starts, the files it deletes, as shell lines: the
    inline-code readers' ``commands``). What such code reaches or leaves to run time is judged
    when the line runs the file: a test or config module is everyday writing."""
    if _ANY_RUN_FILE.search(path) is None:
        return []
    entry = next((e for e in TABLE if e.pattern.search(path)), None)
    if entry is None or entry.reader is _unknown or not entry.when_written:
        return []
    language = _LANGUAGE.get(entry.reader)
    from clawgate.validators.inlinecode import code_effects

    if entry.reader is _ruby_tasks:  # the code's actions, and the shell lines sh is given
        return [*code_effects(text, "ruby").commands, *(_ruby_tasks(text) or [])[1:]]
    if language is None:
        return entry.reader(text) or []
    return list(code_effects(text, language).commands)


_BUILDERS = _PIP_LIKE | {"python", "python3"}


def project_files(path: str, text: str) -> tuple[RunFile, ...]:
    """The Python files a ``pyproject.toml`` (``path``, its ``text``) makes a build run: an
    in-tree build backend (``build-backend = "b"`` with ``backend-path = ["."]``: pip imports
    ``./b.py`` to build) and a Hatch build hook (``[tool.hatch.build.hooks.custom]``,
    ``hatch_build.py`` unless it names another); and the setup modules a JavaScript test
    runner's config names (``jsconfigfiles.py``)."""
    if posixpath.basename(path) != "pyproject.toml":
        from clawgate.validators.jsconfigfiles import js_config_files

        return js_config_files(path, text)  # a test runner's setup modules, if any
    import tomllib

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return ()
    folder = posixpath.dirname(path)
    system = data.get("build-system", {})
    backend = system.get("build-backend") if isinstance(system, dict) else None
    found: list[str] = []
    if isinstance(backend, str) and isinstance(system.get("backend-path"), list):
        module = backend.partition(":")[0].replace(".", "/")
        for where in system["backend-path"]:
            if isinstance(where, str):
                found += [posixpath.join(where, f"{module}.py"),
                          posixpath.join(where, module, "__init__.py")]
    hook = _table(data, "tool", "hatch", "build", "hooks", "custom")
    if hook is not None:
        found.append(str(hook.get("path", "hatch_build.py")))
    return tuple(_file(re.escape(posixpath.normpath(posixpath.join(folder, f))), _BUILDERS,
                       _python, local=True) for f in found)


def _table(data: dict[str, object], *keys: str) -> dict[str, object] | None:
    """The TOML table at ``keys``, or None when a level is missing or no table."""
    node: object = data
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


# A string literal of code: double-quoted (with escapes) or single-quoted.
_LITERAL = lazy_pattern(r""""((?:[^"\\\n]|\\.){0,400})"|'([^'\n]{0,400})'""")
_MAX_LITERALS = 32


def literal_commands(text: str) -> list[MayRun]:
    """The string literals of code no reader here follows (a Rust build script, a Gradle
    file) that read as shell command lines: a build script hands such a string to ``sh -c``
    as often as it runs a program. Each may run or may be data: only a DENY of it counts."""
    found: list[MayRun] = []
    for match in _LITERAL.finditer(text):
        literal = match.group(1) if match.group(1) is not None else match.group(2)
        if " " not in literal and "|" not in literal:
            continue
        line = literal.replace('\\"', '"').replace("\\\\", "\\")
        if not parse(line).has_error:  # text that is no command line to any shell: data
            found.append(MayRun(line))
        if len(found) >= _MAX_LITERALS:
            break
    return found


def _names_project(cmd: SimpleCommand) -> bool:
    """``pip install -e .``, ``pip install '.[dev]'``, ``uv pip install ./``: the project itself,
    whose ``setup.py`` is run to build it."""
    return any(w.value in _LOCAL_OPERANDS or (w.value or "").startswith((".[", "./"))
               for w in cmd.words[1:])
