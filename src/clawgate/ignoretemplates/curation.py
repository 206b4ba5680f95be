"""Which names of the ignore templates are regenerable wherever they appear: the reviewed part.

The templates (github/gitignore) say what a project of one kind keeps out of its repository.
That is not the same as what a build brings back: a template also ignores a person's editor
settings, a site's uploads, credentials, a database, and, in one ecosystem's layout, names
that hold sources in another (``lib``, ``bin``, ``pkg``, ``vendor``). ``regenerable()`` spares a
path when ANY component of it is a listed name (``x/cover/y``), so a name is kept only when it
means build output, a cache, installed dependencies or a report in every project that uses it.

A name is dropped by one of the rules below, each with its reason; what is left is written to
``names.json`` with the templates it came from.
"""

from __future__ import annotations

# Templates of editors, operating systems, version control and other tools (``Global/``)
# ignore a person's settings and histories, the system's bookkeeping and a version control
# system's own store (``.svn``, ``CVS``, ``.hg``): none of it comes back from a build.
GLOBAL_PREFIX = "Global/"

# Templates of content-management systems, shops and servers: they ignore the installed core
# of the product (``wp-admin``, ``typo3``) and the site's own data (``uploads``, ``media``,
# ``files``, a CI server's ``jobs`` and ``builds``), which no build of the repository restores.
SITES = frozenset({
    "Concrete5", "CraftCMS", "Drupal", "EPiServer", "ExpressionEngine", "Joomla", "Kohana",
    "LemonStand", "Lithium", "Magento", "OpenCart", "Phalcon", "Plone", "Prestashop",
    "SugarCRM", "SymphonyCMS", "Textpattern", "Typo3", "WordPress", "JENKINS_HOME",
    "community/PHP/Bitrix", "community/PHP/Drupal7", "community/PHP/Magento1",
    "community/PHP/Magento2", "community/PHP/Pimcore", "community/DotNet/InforCMS",
    "community/DotNet/Kentico", "community/DotNet/Umbraco", "community/Strapi",
})

# A file name's extension (after its last dot, a leading dot aside) must say it is output a
# run writes again: a log, a cache, a process id, a tool's redirected output. Any other
# extension (.json, .xml, .toml, .php, .db, .dll, .key …) may be configuration, source, a
# database, a credential or a binary someone downloaded: not spared on the templates' word.
OUTPUT_EXTENSIONS = frozenset({"log", "cache", "caches", "out", "tmp", "pid", "err", "wrn"})

# Credentials and a person's settings that a template names without an extension.
CREDENTIAL_PREFIXES = (".env",)  # .env, .env.local, .envrc: secrets and a person's settings

# Names a template lists that are sources, data or settings in other projects: reason -> names.
# regenerable() matches a name at any depth, so a name that is a source directory or a package
# in some ecosystems (Go's debug and log packages, a kernel's arch/arm) is dropped even where a
# template means its build output by it.
REVIEWED: dict[str, tuple[str, tuple[str, ...]]] = {
    "source": ("a source directory in many projects (src/, lib/ of Ruby and Node, include/ of "
               "C, Go's pkg/, a library's modules/, plugins/ and classes/, CFWheels' "
               "wheels/)", (
        "src", "lib", "lib64", "libs", "includes", "inc", "pkg", "modules",
        "plugins", "classes", "libraries", "packages", "source_gen", "api",
        "ext", "cli", "server", "scripts", "misc", "init", "controllers", "templates",
        "themes", "solution", "applet", "auto", "min", "symphony", "test", "testapp", "demos",
        "platforms", "codegen", "compiled", "objects", "language",
        "runtime", "internal", "stage", "prime", "version", "status", "stat", "stop",
        "success", "request", "states", "settings", "profiles", "local", "config", "configs",
        "icon", "checkouts", "installation", "install", "deploy", "publish", "export",
        "assets", "img", "media", "locales", "translations", "typings", "rpc", "sitemap",
        "devel", "diagnosis", "ignored", "inspector", "intermediate", "mercury", "binaries",
        "wheels", "cmakescripts", "pylibs")),
    "acronym": ("a short name or an acronym that names a library or a source directory "
                "elsewhere (RCF's include/RCF, C# scripts' csx/, Native Client's pnacl/), "
                "and regenerable() matches at any depth in either case",
                ("csx", "ecf", "rcf", "skc", "skc_1", "skc_2", "ski", "pnacl")),
    "bin": ("bin/ holds committed scripts: Rails' bin/rails, npm packages' bin/ entry points, "
            "shell tools' bin/", ("bin",)),
    "vendored": ("committed dependencies: vendor/ in Go (go mod vendor) and in many PHP and "
                 "Ruby projects, deps/ in Node and C projects, rebar3's _checkouts being "
                 "edited", ("vendor", "vendors", "deps", "_deps", "_checkouts", "cookbooks")),
    "data": ("data, databases and recorded state, not rebuilt: data/, db/, var/ of a Python "
             "installation or a server, a message broker's store, a local DynamoDB, captured "
             "profiles, snapshot tests' .snapshots", (
        "data", "db", "var", "storage", "mnesia", "rabbitmq", "rabbitmq-data",
        "activemq-data", "instance", "saved", "files", "uploads", "upload", "dump", "results",
        "simulation_results", ".dynamodb", "healthchecksdb", "captures", ".snapshots")),
    "docs": ("documentation is written by hand in many projects (docs/, doc/; rdoc/, javadoc/ "
             "and htmldocs/ are generated only where a template says so)",
             ("docs", "doc", "rdoc", "javadoc", "htmldocs")),
    "webroot": ("the web root of create-react-app, Vite and many sites, not only a static "
                "generator's output; WEB-INF of a Java web application",
                ("public", "web-inf")),
    "env": ("an environment directory named like a source one (env/ is a package in many "
            "projects; .venv and venv are listed by hand)", ("env", "env.bak", "venv.bak")),
    "generic": ("a package or directory name in many source trees (Go's debug, log and cache "
                "packages, a kernel's arch/arm, release/ and output/ packages, artifacts/ and "
                "reports/ kept as a build's record)", (
        "debug", "release", "log", "logs", "cache", "output", "x86", "x64", "arm", "arm-p",
        "test-output", "reports", "parts", "downloads", "download", "testing",
        "builds", "jobs", "indexing", "screenshots", "bld", "artifacts", "result", "pids")),
    "settings": ("a person's settings, histories or credentials, kept out of a repository "
                 "because they are personal, not because they come back", (
        ".vscode", ".idea", ".vs", ".settings", ".project", ".classpath", ".metadata",
        ".config", ".local", ".dev", ".bundle", ".vercel", ".yarn", ".sf", ".sfdx",
        ".netrwhist", "nbproject", ".spyderproject", ".spyproject", ".ropeproject",
        ".projectile", ".rproj.user", ".ruserdata", ".rdata", ".rdatatmp", ".renviron",
        ".httr-oauth", ".pypirc", ".terraformrc", ".powenv", ".rvmrc", ".python-version",
        ".java-version", ".jenv-version", ".firebaserc", ".tern-project", ".rspec",
        ".vagrant", "rsconnect", ".rebar", ".rebar3", ".dropbox", ".stversions", ".svn",
        ".hg", ".bzr", "cvs", ".c9", ".kdev4", ".ensime", ".aptos", ".tcgit", ".moonagent")),
    "project-files": ("an IDE's project files and a tool's configuration, hand-edited and "
                      "often committed (Eclipse CDT's .cproject, Bazel plugins' project "
                      "views, merlin's and esp-idf's configuration, colcon's markers)", (
        ".cproject", ".eclipse", ".consulo", ".vsconfig", ".aswb", ".clwb", ".ijwb",
        ".architect", ".merlin", "sdkconfig", ".exercism", ".abstra", ".mqproj",
        "profile_default", "publishscripts", "ament_ignore", "catkin_ignore",
        "colcon_ignore")),
    "tool-file": ("a file a tool writes that projects also write by hand or keep (autotools' "
                  "configure and Makefile, ctags' tags, a trash can's contents)", (
        "makefile", "configure", "missing", "compile", "depcomp", "libtool", "install-sh",
        "ar-lib", "mdate-sh", "py-compile", "test-driver", "ylwrap", "manifest", "tags",
        "lost+found", ".trashes", ".trash-1000")),
}

# A history or a backup is what is kept when something else is lost (a REPL's history,
# Delphi's __history of edited sources, an IDE's AutoBackups, a migration's backup).
KEPT_WORDS = ("history", "backup", "recovery", "bak")
