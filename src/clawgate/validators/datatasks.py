"""Frameworks' and ORMs' tasks that wipe a database (``rails db:drop``, ``manage.py flush``,
``artisan migrate:fresh``, ``prisma migrate reset``, ``flyway clean``...), judged by the
environment or connection the line selects (``datatargets``)."""

from __future__ import annotations

import re

from clawgate.decision import NO_OPINION, Verdict
from clawgate.lazyre import lazy_pattern
from clawgate.shell.model import SimpleCommand
from clawgate.validators.base import Context, Validator, register
from clawgate.validators.datatargets import Target, line_target, verdict

# (tool, the tasks after it that wipe data): the tool is found anywhere in the argv, so that
# ``bundle exec rake``, ``python manage.py``, ``npx prisma``, ``php artisan`` all count.
_TASKS: dict[str, re.Pattern[str]] = {name: re.compile(pattern) for names, pattern in (
    (("rails", "rake"), r"(?:^|\s)db:(?:drop|reset|purge|truncate_all|schema:load|"
                        r"structure:load|migrate:reset|seed:replant|setup)(?::\w+)*(?=\s|$)"),
    (("manage.py", "django-admin", "django"), r"^(?:flush|reset_db|reset_schema|"
                                              r"migrate\s+\S+\s+zero)(?=\s|$)"),
    (("artisan",), r"^(?:migrate:(?:fresh|reset|refresh)|db:wipe)(?=\s|$)"),
    (("prisma",), r"^(?:migrate\s+reset|db\s+push\s.*--force-reset)(?=\s|$)"),
    (("console", "symfony"), r"(?:^|\s)doctrine:(?:database|schema):drop(?=\s|$)"),
    (("mix",), r"^ecto\.(?:drop|reset)(?=\s|$)"),
    (("dotnet",), r"^ef\s+database\s+drop(?=\s|$)"),
    (("sequelize", "sequelize-cli"), r"^db:drop(?=\s|$)"),
    (("typeorm", "typeorm-ts-node-commonjs", "typeorm-ts-node-esm"), r"^schema:drop(?=\s|$)"),
    (("flyway",), r"(?:^|\s)clean(?=\s|$)"),
    (("liquibase",), r"(?:^|\s)(?:dropAll|drop-all)(?=\s|$)"),
    (("alembic", "flask"), r"^(?:db\s+)?downgrade\s+base(?=\s|$)"),
    (("knex",), r"^migrate:rollback\s.*--all(?=\s|$)"),
    (("diesel", "sqlx"), r"^database\s+(?:reset|drop)(?=\s|$)"),
    (("supabase",), r"^db\s+reset(?=\s|$)"),
) for name in names}
# Tasks that build a database from the schema: on an empty one (a new checkout, CI) they only
# create, so they are judged only when the line names production or a remote database.
_LOADS = lazy_pattern(r"^db:(?:schema:load|structure:load|setup)(?::\w+)*$")
_ENV_OPTIONS = frozenset({"e", "env", "environment", "settings", "database", "url", "db-url",
                         "database-url", "connection", "schema", "profile"})
_ASSIGNMENT = lazy_pattern(r"^([A-Za-z_]\w*)=(.*)$", re.S)
# Words that say the task is meant for production: Laravel's ``--force`` (run "when in
# production"), Rails' ``DISABLE_DATABASE_ENVIRONMENT_CHECK``, supabase's linked project.
_PRODUCTION_SIGNS = frozenset({"DISABLE_DATABASE_ENVIRONMENT_CHECK", "--linked"})


def _task(cmd: SimpleCommand) -> tuple[int, str] | None:
    """(index of the tool word, the wiping task) when the argv runs one."""
    argv = cmd.argv
    for i, word in enumerate(argv):
        pattern = _TASKS.get(word.rsplit("/", 1)[-1])
        if pattern is not None:
            tasks = [m.group(0).strip() for m in pattern.finditer(" ".join(argv[i + 1:]))]
            if tasks:  # a wiping task before one that only loads the schema
                return i, min(tasks, key=lambda t: _LOADS.match(t) is not None)
    return None


def _names(cmd: SimpleCommand, start: int) -> tuple[list[str], list[tuple[str, str]]]:
    """The environment and connection names the options give, and the line's assignments."""
    argv = cmd.argv
    assignments = [(a.name, a.value.value or a.value.text) for a in cmd.assignments]
    # ``env RAILS_ENV=production rails …`` before the tool, ``rake db:drop RAILS_ENV=…`` after
    assignments += [(m.group(1), m.group(2)) for w in argv if (m := _ASSIGNMENT.match(w))]
    names: list[str] = [w for w in argv if "://" in w]
    for i, word in enumerate(argv[start:], start=start):
        name, eq, value = word.lstrip("-").partition("=")
        if word.startswith("-") and name in _ENV_OPTIONS:
            if eq:
                names.append(value)
            elif i + 1 < len(argv):
                names.append(argv[i + 1])
    return names, assignments


@register
class DatabaseResetTask(Validator):
    """A framework's or ORM's task that drops or empties the database (``rails db:drop``,
    ``db:reset``, ``manage.py flush``, ``migrate APP zero``, ``artisan migrate:fresh``,
    ``prisma migrate reset``, ``doctrine:database:drop``, ``mix ecto.reset``, ``flyway clean``):
    DENY for a production environment or a remote database (``RAILS_ENV=production``,
    ``--env=production``, ``--settings=app.settings.prod``, ``DATABASE_URL=postgres://db.x``,
    Laravel's ``--force``), ASK for the default (development) one, left alone for the test
    environment (``RAILS_ENV=test rails db:reset``).

    Bad: ``RAILS_ENV=production rails db:reset``. Harmless: ``rails db:migrate``.
    """

    id = "CG-DATA-002"
    programs = frozenset(_TASKS) | {"python", "bundle", "npx", "pnpm", "yarn", "bunx", "bun",
                                    "php", "env", "npm", "uv", "poetry", "pipenv"}

    def check(self, cmd: SimpleCommand, ctx: Context) -> Verdict:
        program = cmd.program or ""
        if program not in self.programs and program.rstrip("0123456789.") not in self.programs:
            return NO_OPINION  # ``sudo rails …``: the inner command is checked
        found = _task(cmd)
        if found is None:
            return NO_OPINION
        start, task = found
        names, assignments = _names(cmd, start)
        target = line_target([], names, assignments)
        signs = {n for n, _ in assignments} | set(cmd.argv)
        if signs & _PRODUCTION_SIGNS or (cmd.argv[start].endswith("artisan")
                                         and "--force" in cmd.argv):
            target = Target.PRODUCTION
        if _LOADS.match(task) and target < Target.REMOTE:
            return NO_OPINION
        return verdict(self.id, f"{task} drops or empties the database", target,
                       hint="run it against the test environment, or back the data up first")
