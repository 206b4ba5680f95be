"""What Python's standard library (and the usual network packages) does, by dotted name: which
calls start processes and how they take their argv, which act on files, which decode text."""

from __future__ import annotations

# Calls whose first argument is a shell command line.
LINE_CALLS = frozenset({
    "os.system", "os.popen", "os.popen2", "os.popen3", "os.popen4", "subprocess.getoutput",
    "subprocess.getstatusoutput", "commands.getoutput", "commands.getstatusoutput",
    "platform.popen", "asyncio.create_subprocess_shell", "popen2.popen2", "popen2.popen3",
})
# Calls taking an argv list (or, with ``shell=True`` or as a lone string, a command line).
ARGS_CALLS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call",
                        "subprocess.check_output", "subprocess.Popen", "pty.spawn"})
# os.exec*/os.spawn*: where the program is (after ``mode`` for spawn*), whether the rest of
# argv comes as a list (v) or as arguments (l), and whether an environment ends them (e).
EXEC_CALLS: dict[str, tuple[int, bool, bool]] = {
    **{f"os.exec{s}": (0, "v" in s, s.endswith("e"))
       for s in ("l", "lp", "le", "lpe", "v", "vp", "ve", "vpe")},
    **{f"os.spawn{s}": (1, "v" in s, s.endswith("e"))
       for s in ("l", "lp", "le", "lpe", "v", "vp", "ve", "vpe")},
    "os.posix_spawn": (0, True, False), "os.posix_spawnp": (0, True, False),
}
# Process starts whose payload is not an argument read here.
OPAQUE_SPAWNS = frozenset({"os.fork", "os.forkpty", "pty.fork", "os.startfile",
                           "asyncio.create_subprocess_exec", "multiprocessing.Process"})
DUP = frozenset({"os.dup2", "os.dup"})
PRIVILEGE = frozenset(f"os.{n}" for n in ("setuid", "setgid", "seteuid", "setegid", "setreuid",
                                          "setregid", "setresuid", "setresgid"))
NATIVE_PREFIXES = ("ctypes.", "cffi.", "_ctypes.")
NETWORK_PREFIXES = ("socket.", "urllib.request.", "urllib.urlopen", "urllib.urlretrieve",
                    "urllib2.", "http.client.", "requests.", "httpx.", "aiohttp.", "ftplib.",
                    "smtplib.", "telnetlib.", "paramiko.", "websocket.", "websockets.",
                    "xmlrpc.client.", "asyncio.open_connection", "asyncio.start_server",
                    "ssl.wrap_socket", "pycurl.", "http.server.", "socketserver.",
                    "SocketServer.", "SimpleHTTPServer.", "BaseHTTPServer.")
NETWORK_QUERIES = frozenset({"socket.gethostname", "socket.getfqdn", "socket.gethostbyname",
                             "socket.inet_aton", "socket.inet_ntoa", "socket.htons",
                             "socket.ntohs", "socket.has_ipv6", "requests.__version__",
                             "urllib.request.pathname2url", "urllib.request.url2pathname"})
# Evaluating text as code.
EVALUATORS = frozenset({"exec", "eval", "compile", "execfile", "builtins.exec", "builtins.eval",
                        "builtins.compile", "runpy.run_path", "code.interact"})
IMPORTERS = frozenset({"__import__", "importlib.import_module", "builtins.__import__"})
# Turning encoded, compressed or fetched text into plain text: code made this way was hidden.
DECODERS = frozenset({"b64decode", "b32decode", "b16decode", "b85decode", "a85decode",
                      "urlsafe_b64decode", "standard_b64decode", "decodebytes",
                      "decodestring", "unhexlify", "a2b_base64", "a2b_hex", "a2b_uu", "fromhex",
                      "decompress", "chr", "urlopen", "urlretrieve", "recv", "recvfrom"})
DECODER_MODULES = ("codecs.", "marshal.", "pickle.", "requests.", "httpx.", "zlib.", "base64.",
                   "binascii.", "lzma.", "bz2.", "gzip.")
# The forms of ``str.decode``/``codecs.decode`` that hide text.
HIDING_CODECS = frozenset({"rot13", "rot_13", "hex", "base64", "base_64", "zlib", "bz2",
                           "uu", "hex_codec", "base64_codec", "zlib_codec", "rot-13"})

OPENERS = frozenset({"open", "io.open", "codecs.open", "builtins.open"})
# Module functions acting on one path (first argument).
ONE_PATH: dict[str, str] = {
    "os.remove": "delete", "os.unlink": "delete", "os.rmdir": "rmdir", "os.removedirs": "rmdir",
    "shutil.rmtree": "rmtree", "os.mkdir": "mkdir", "os.makedirs": "mkdir",
    "os.mknod": "touch", "os.mkfifo": "touch",
}
# Module functions acting on two paths (source, destination).
TWO_PATHS: dict[str, str] = {
    "os.rename": "move", "os.replace": "move", "os.renames": "move", "shutil.move": "move",
    "shutil.copy": "copy", "shutil.copy2": "copy", "shutil.copyfile": "copy",
    "shutil.copytree": "copy", "os.symlink": "symlink", "os.link": "link",
}
# Methods of pathlib paths: (verb, what the first argument is: "" nothing, "path", "mode").
PATH_METHODS: dict[str, str] = {
    "write_text": "write", "write_bytes": "write", "touch": "touch", "mkdir": "mkdir",
    "unlink": "delete", "rmdir": "rmdir", "read_text": "read", "read_bytes": "read",
    "rename": "move", "replace": "move", "symlink_to": "symlink", "hardlink_to": "link",
    "chmod": "chmod",
}
PATH_MAKERS = frozenset({"Path", "pathlib.Path", "PurePath", "pathlib.PurePath", "PosixPath",
                         "pathlib.PosixPath"})
PATH_CHAINS = frozenset({"joinpath", "expanduser", "resolve", "absolute", "with_name",
                         "with_suffix", "with_stem"})
# Calls standing for a path: the home directory, the current directory.
HOME_CALLS = frozenset({"pathlib.Path.home", "Path.home", "os.path.expanduser"})
# Printing, serialising or formatting: a whole environment given to one of them is exposed.
OUTPUTS = frozenset({"print", "pprint.pprint", "pprint.pp", "json.dumps", "json.dump", "str",
                     "repr", "format", "sys.stdout.write", "sys.stderr.write", "yaml.dump",
                     "yaml.safe_dump", "pickle.dump", "pickle.dumps", "dict", "list", "sorted",
                     "logging.info", "logging.warning", "logging.error", "logging.debug"})
ENV_READERS = frozenset({"get", "setdefault", "pop", "__getitem__", "__contains__", "update",
                         "__setitem__", "copy", "putenv", "unsetenv"})
