"""What the other scripting languages' standard calls do, by the last part of their name: file
actions (verb, index of the path argument), evaluators, decoders, network reach."""

from __future__ import annotations

_JS_FILES = {
    **dict.fromkeys(("writeFileSync", "writeFile", "createWriteStream", "outputFileSync",
                     "outputFile", "writeTextFileSync", "writeTextFile", "write"), ("write", 0)),
    **dict.fromkeys(("appendFileSync", "appendFile"), ("append", 0)),
    **dict.fromkeys(("rmSync", "rm", "removeSync", "remove", "emptyDirSync"), ("rmtree", 0)),
    **dict.fromkeys(("unlinkSync", "unlink"), ("delete", 0)),
    **dict.fromkeys(("rmdirSync", "rmdir"), ("rmdir", 0)),
    **dict.fromkeys(("renameSync", "rename", "moveSync", "move"), ("move", 0)),
    **dict.fromkeys(("copyFileSync", "copyFile", "cpSync", "cp", "copySync"), ("copy", 0)),
    **dict.fromkeys(("symlinkSync", "symlink"), ("symlink", 0)),
    **dict.fromkeys(("readFileSync", "readFile", "createReadStream", "readTextFileSync",
                     "readTextFile"), ("read", 0)),
    "openSync": ("read", 0), "mkdirSync": ("mkdir", 0), "chmodSync": ("touch", 0),
}
_RUBY_FILES = {
    "write": ("write", 0), "binwrite": ("write", 0), "open": ("read", 0), "new": ("read", 0),
    "delete": ("delete", 0), "unlink": ("delete", 0), "rm": ("delete", 0),
    "rm_f": ("delete", 0), "rm_r": ("rmtree", 0), "rm_rf": ("rmtree", 0),
    "remove_dir": ("rmtree", 0), "remove_entry": ("rmtree", 0), "rmtree": ("rmtree", 0),
    "mv": ("move", 0), "rename": ("move", 0), "cp": ("copy", 0), "cp_r": ("copy", 0),
    "ln_s": ("symlink", 0), "symlink": ("symlink", 0), "mkdir_p": ("mkdir", 0),
    "touch": ("touch", 0), "read": ("read", 0), "readlines": ("read", 0),
    "binread": ("read", 0), "foreach": ("read", 0),
}
_PERL_FILES = {
    "open": ("read", 1), "sysopen": ("write", 1), "unlink": ("delete", 0),
    "rmtree": ("rmtree", 0), "remove_tree": ("rmtree", 0), "rename": ("move", 0),
    "move": ("move", 0), "copy": ("copy", 0), "symlink": ("symlink", 0), "mkpath": ("mkdir", 0),
    "make_path": ("mkdir", 0), "rmdir": ("rmdir", 0), "write_file": ("write", 0),
    "read_file": ("read", 0), "spew": ("write", 0), "slurp": ("read", 0),
}
_PHP_FILES = {
    "file_put_contents": ("write", 0), "fopen": ("read", 0), "unlink": ("delete", 0),
    "rmdir": ("rmdir", 0), "rename": ("move", 0), "copy": ("copy", 0),
    "symlink": ("symlink", 0), "mkdir": ("mkdir", 0), "touch": ("touch", 0),
    "file_get_contents": ("read", 0), "readfile": ("read", 0), "file": ("read", 0),
}
_LUA_FILES = {"open": ("read", 0), "remove": ("delete", 0), "rename": ("move", 0),
              "lines": ("read", 0), "output": ("write", 0)}
_R_FILES = {"writeLines": ("write", 1), "file.remove": ("delete", 0), "unlink": ("rmtree", 0),
            "file.rename": ("move", 0), "file.copy": ("copy", 0), "readLines": ("read", 0),
            "saveRDS": ("write", 1), "readRDS": ("read", 0), "remove": ("delete", 0),
            "copy": ("copy", 0), "rename": ("move", 0)}
# Java's file classes, as JavaScript on the JVM (jrunscript, jjs: Nashorn/Rhino) reaches them
# (``new java.io.FileWriter(p)``), and jrunscript's shell-like built-ins (``cp(a, b)``)
_JAVA_FILES = {
    **dict.fromkeys(("FileReader", "FileInputStream", "readAllBytes", "readAllLines",
                     "readString"), ("read", 0)),
    **dict.fromkeys(("FileWriter", "FileOutputStream", "PrintWriter", "PrintStream",
                     "writeString"), ("write", 0)),
}
_JVM_JS_FILES = {**_JS_FILES, **_JAVA_FILES, "cat": ("read", 0), "rm": ("delete", 0),
                 "mv": ("move", 0), "cp": ("copy", 0), "mkdir": ("mkdir", 0)}
_JULIA_FILES = {"open": ("read", 0), "read": ("read", 0), "write": ("write", 0),
                "readlines": ("read", 0), "readline": ("read", 0), "eachline": ("read", 0),
                "rm": ("rmtree", 0), "mv": ("move", 0), "cp": ("copy", 0),
                "symlink": ("symlink", 0), "mkdir": ("mkdir", 0), "mkpath": ("mkdir", 0),
                "touch": ("touch", 0), "download": ("write", 1)}
_OCTAVE_FILES = {"fopen": ("read", 0), "fileread": ("read", 0), "textread": ("read", 0),
                 "csvread": ("read", 0), "dlmread": ("read", 0), "delete": ("delete", 0),
                 "unlink": ("delete", 0), "rmdir": ("rmdir", 0), "mkdir": ("mkdir", 0),
                 "copyfile": ("copy", 0), "movefile": ("move", 0), "rename": ("move", 0),
                 "csvwrite": ("write", 0), "dlmwrite": ("write", 0), "urlwrite": ("write", 1),
                 "websave": ("write", 0)}
_GO_FILES = {"ReadFile": ("read", 0), "Open": ("read", 0), "OpenFile": ("read", 0),
             "Create": ("write", 0), "WriteFile": ("write", 0), "Remove": ("delete", 0),
             "RemoveAll": ("rmtree", 0), "Rename": ("move", 0), "Symlink": ("symlink", 0),
             "Link": ("link", 0), "Mkdir": ("mkdir", 0), "MkdirAll": ("mkdir", 0)}
_ERLANG_FILES = {"delete": ("delete", 0), "del_dir": ("rmdir", 0), "del_dir_r": ("rmtree", 0),
                 "write_file": ("write", 0), "read_file": ("read", 0), "consult": ("read", 0),
                 "rename": ("move", 0), "copy": ("copy", 0), "make_symlink": ("symlink", 0),
                 "make_dir": ("mkdir", 0), "open": ("read", 0)}
# Erlang's calls that run a shell command line (``os:cmd("…")``)
ERLANG_SPAWNS = frozenset({"os.cmd"})
# Go's os.OpenFile writes when its flags say so
GO_WRITE_FLAGS = frozenset({"O_WRONLY", "O_RDWR", "O_CREATE", "O_APPEND", "O_TRUNC"})
GO_SPAWNS = frozenset({"exec.Command", "exec.CommandContext", "syscall.Exec",
                       "syscall.ForkExec", "os.StartProcess"})
FILE_CALLS: dict[str, dict[str, tuple[str, int]]] = {
    "js": _JS_FILES, "ruby": _RUBY_FILES, "perl": _PERL_FILES, "php": _PHP_FILES,
    "lua": _LUA_FILES, "r": _R_FILES, "jvmjs": _JVM_JS_FILES, "julia": _JULIA_FILES,
    "octave": _OCTAVE_FILES, "go": _GO_FILES, "erlang": _ERLANG_FILES,
}
# Calls whose second argument is an fopen-style mode ("w", "a", "r+").
MODE_OPENERS = frozenset({"open", "new", "fopen", "openSync"})
MODE_LANGUAGES = frozenset({"js", "ruby", "php", "lua", "octave", "julia"})
EVALUATORS = frozenset({"eval", "Function", "exec", "instance_eval", "class_eval",
                        "module_eval", "assert", "create_function", "loadstring", "load",
                        "evalq", "parse", "runInThisContext", "runInNewContext", "system",
                        "execSync", "shell_exec", "passthru", "popen", "spawn", "spawnSync"})
# Calls that load and run a file of code by its name (R's ``source``, Julia's ``include``,
# PHP's ``include``/``require``, Perl's ``do``/``require``, Lua's ``dofile``/``loadfile``,
# Ruby's ``load``): given an address, or text fetched from one, they run code nobody read.
CODE_LOADERS = frozenset({"source", "sys.source", "include", "include_once", "require",
                          "require_once", "do", "dofile", "loadfile", "load", "evalfile"})
DECODERS = frozenset({"atob", "decode_base64", "decode64", "strict_decode64", "urlsafe_decode64",
                      "base64_decode", "gzinflate", "gzuncompress", "gzdecode", "str_rot13",
                      "hex2bin", "fromCharCode", "unpack", "pack", "reverse", "strrev",
                      "unescape", "inflateSync", "gunzipSync", "b64decode", "base64dec",
                      "rawToChar", "base64decode", "decode", "chr", "from"})
NETWORK: dict[str, frozenset[str]] = {
    "js": frozenset({"net.connect", "net.createConnection", "net.Socket", "net.createServer",
                     "dgram.createSocket", "tls.connect", "http.request", "http.get",
                     "https.request", "https.get", "fetch", "http.createServer",
                     "WebSocket", "Deno.connect", "Deno.listen", "Bun.connect", "Bun.listen"}),
    "perl": frozenset({"IO.Socket", "socket", "LWP.UserAgent", "LWP.Simple", "getstore",
                       "HTTP.Tiny", "Net.FTP"}),
    "ruby": frozenset({"TCPSocket", "UDPSocket", "TCPServer", "Socket", "Net.HTTP", "URI.open"}),
    "php": frozenset({"fsockopen", "pfsockopen", "stream_socket_client", "stream_socket_server",
                      "socket_create", "curl_exec", "curl_init"}),
    "lua": frozenset({"socket.tcp", "socket.connect", "socket.bind", "socket.udp",
                      "http.request"}),
    "r": frozenset({"socketConnection", "url", "download.file", "curl_download",
                    "make.socket"}),
    "jvmjs": frozenset({"java.net.URL", "java.net.Socket", "java.net.ServerSocket",
                        "java.net.HttpURLConnection", "java.net.http.HttpClient", "URL",
                        "Socket", "ServerSocket"}),
    "julia": frozenset({"download", "Downloads.download", "Sockets.connect", "connect",
                        "listen", "Sockets.listen", "HTTP.get", "HTTP.post", "HTTP.request"}),
    "octave": frozenset({"urlread", "urlwrite", "webread", "webwrite", "websave", "tcpclient",
                         "tcpserver", "tcp", "udpport", "socket"}),
    "erlang": frozenset({"gen_tcp", "gen_udp", "gen_sctp", "ssl.connect", "httpc.request",
                         "httpc", "inets"}),
    "go": frozenset({"net.Dial", "net.DialTimeout", "net.DialTCP", "net.DialUDP", "net.Listen",
                     "net.ListenTCP", "net.ListenPacket", "http.Get", "http.Post",
                     "http.PostForm", "http.Head", "http.NewRequest", "http.ListenAndServe",
                     "syscall.Socket", "syscall.Connect", "syscall.Bind", "syscall.Listen"}),
}
# Interpreter family -> the token language its code is read as.
LANGUAGES = {"node": "js", "nodejs": "js", "bun": "js", "deno": "js", "ts-node": "js",
             "tsx": "js", "perl": "perl",
             "ruby": "ruby", "php": "php", "lua": "lua", "luajit": "lua", "R": "r",
             "Rscript": "r", "jrunscript": "jvmjs", "jjs": "jvmjs", "julia": "julia",
             "octave": "octave", "octave-cli": "octave", "erl": "erlang"}
# Names too common to be taken for file calls unless qualified by a file module
# (``fs.rm``, ``FileUtils.mv``, ``io.open``, ``os.remove``); other names of FILE_CALLS are
# distinctive (``writeFileSync``, ``file_put_contents``, Perl's ``unlink`` builtin).
AMBIGUOUS = frozenset({"rm", "remove", "move", "cp", "copy", "rename", "open", "new", "read",
                       "write", "delete", "lines", "output", "touch", "readlines", "foreach",
                       "symlink", "mv", "unlink", "rmdir", "mkdir", "file", "binread",
                       "binwrite", "rmtree"})
QUALIFIERS: dict[str, tuple[str, ...]] = {
    "js": ("fs", "fsp", "fse", "fs.promises", "promises", "Deno", "Bun"),
    "ruby": ("File", "FileUtils", "IO", "Dir", "Pathname", "FileUtils.Verbose"),
    "perl": ("", "File.Path", "File.Copy", "CORE"),
    "php": ("",), "lua": ("io", "os"), "r": ("", "base", "fs"),
    "jvmjs": ("", "fs", "java.io", "java.nio.file.Files", "Files"), "julia": ("", "Base"),
    "octave": ("",), "go": ("os", "ioutil"), "erlang": ("file",),
}
# Modules whose loading says the code reaches the network.
NETWORK_MODULES = frozenset({"net", "dgram", "tls", "http", "https", "node:net", "node:http",
                             "node:https", "node:dgram", "node:tls", "socket", "net/http",
                             "open-uri", "socket.http", "httr", "curl", "ws", "axios",
                             "node-fetch", "undici"})
# Calls that start a process from a command line (one string) or an argv (several strings,
# or a string and an array of strings): ``system("rm", "-rf", "/")``, ``spawn("rm", [...])``.
# Perl's ``readpipe`` is the function behind ``qx``.
SPAWNS = frozenset({"system", "exec", "spawn", "spawnSync", "execFile", "execFileSync",
                    "execSync", "execvp", "execv", "pcntl_exec", "popen", "passthru",
                    "shell_exec", "proc_open", "capture2", "capture2e", "capture3", "popen3",
                    "execute", "system2", "shell_cmd", "ProcessBuilder", "readpipe"})
