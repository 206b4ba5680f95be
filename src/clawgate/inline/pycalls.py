"""One Python call judged: a process started, a file acted on, text evaluated, the network
reached, ids changed, native code loaded, the environment exposed."""

from __future__ import annotations

import ast

from clawgate.inline import pytables as t
from clawgate.inline.effects import action

TYPE_CHECKING = False
if TYPE_CHECKING:
    from clawgate.inline.python import _Reader


def judge_call(reader: _Reader, node: ast.Call, name: str) -> None:
    """Record in ``reader`` what calling ``name`` as ``node`` does."""
    if _process(reader, node, name) or _file(reader, node, name):
        return
    if name in t.EVALUATORS or name in t.IMPORTERS:
        _evaluate(reader, node, name)
    elif name in t.DUP:
        reader.flags.add("dup")
    elif name in t.PRIVILEGE:
        reader.flags.add("privilege")
    elif name.startswith(t.NATIVE_PREFIXES):
        reader.flags.add("native")
    elif name.startswith(t.NETWORK_PREFIXES) and name not in t.NETWORK_QUERIES:
        reader.flags.add("network")
    elif name in t.OUTPUTS and _exposes_environ(reader, node):
        reader.flags.add("env")


def _arg(node: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if len(node.args) > index and not any(isinstance(a, ast.Starred) for a in node.args):
        return node.args[index]
    return next((k.value for k in node.keywords if k.arg == keyword), None)


def _process(reader: _Reader, node: ast.Call, name: str) -> bool:
    if name in t.LINE_CALLS:
        reader.run_line(_arg(node, 0, "cmd") or _arg(node, 0, "command"), name)
    elif name in t.ARGS_CALLS:
        payload = _arg(node, 0, "args") or _arg(node, 0, "argv")
        argv = reader.argv(payload) if payload is not None else None
        if argv is None and payload is not None and reader.text(payload) is not None:
            reader.run_line(payload, name)  # a string: with shell=True a line, else a program
        else:
            reader.run(argv, name, payload)
        if any(k.arg == "executable" for k in node.keywords):
            reader.opaque.append(f"{name} runs another executable than it names")
    elif name in t.EXEC_CALLS:
        reader.run(_exec_argv(reader, node, *t.EXEC_CALLS[name]), name, node)
    elif name in t.OPAQUE_SPAWNS:
        reader.flags.add("spawns")
        reader.opaque.append(f"{name} starts a process")
    else:
        return False
    return True


def _exec_argv(reader: _Reader, node: ast.Call, at: int, vector: bool,
               env: bool) -> list[str] | None:
    """``os.execl(path, arg0, *args)``/``os.execv(path, argv)`` (``spawn*`` after a mode):
    the program path with the arguments after argv[0]."""
    args = node.args
    if any(isinstance(a, ast.Starred) for a in args) or len(args) <= at:
        return None
    program = reader.text(args[at])
    rest: list[str] | None
    if vector:
        rest = reader.argv(args[at + 1]) if len(args) > at + 1 else []
    else:
        texts = [reader.text(a) for a in args[at + 1 : len(args) - 1 if env else None]]
        rest = None if any(x is None for x in texts) else [x or "" for x in texts]
    if program is None or rest is None:
        return None
    return [program, *rest[1:]]


def _file(reader: _Reader, node: ast.Call, name: str) -> bool:
    if name in t.OPENERS:
        mode = reader.text(_arg(node, 1, "mode") or ast.Constant("r")) or "w"
        path = _arg(node, 0, "file")
        verb = "append" if "a" in mode else "write" if set(mode) & set("wx+") else "read"
        reader.act(verb, path)
    elif name == "os.open":
        flags = ast.dump(node.args[1]) if len(node.args) > 1 else ""
        writes = any(f in flags for f in ("WRONLY", "RDWR", "CREAT", "TRUNC", "APPEND"))
        reader.act("write" if writes else "read", _arg(node, 0, "path"))
    elif name in t.ONE_PATH:
        reader.act(t.ONE_PATH[name], _arg(node, 0, "path"))
    elif name in t.TWO_PATHS:
        _two(reader, t.TWO_PATHS[name], _arg(node, 0, "src"), _arg(node, 1, "dst"))
    elif name in ("os.chmod", "os.chown", "os.truncate", "shutil.chown"):
        reader.act(name.rsplit(".", maxsplit=1)[-1], _arg(node, 0, "path"),
                   _number(node.args[1:]))
    elif isinstance(node.func, ast.Attribute) and node.func.attr in t.PATH_METHODS:
        return _path_method(reader, node, node.func)
    else:
        return False
    return True


def _two(reader: _Reader, verb: str, source: ast.AST | None,
         dest: ast.AST | None) -> None:
    """``mv``/``cp``/``ln`` of two paths; with either only known at run time, the destination
    is a write and a moved source a delete."""
    src = reader.text(source) if source is not None else None
    dst = reader.text(dest) if dest is not None else None
    if src is not None and dst is not None:
        reader.commands.append(action(verb, src, dst))
        return
    reader.act("write", dest)
    if verb == "move":
        reader.act("delete", source)


def _number(args: list[ast.expr]) -> str:
    """A mode (``0o755`` as ``755``), an owner pair (``0:0``) or a size, from literals."""
    values = [a.value for a in args if isinstance(a, ast.Constant)]
    if len(values) == 1 and isinstance(values[0], int):
        return oct(values[0])[2:]
    return ":".join(str(v) for v in values) or "0"


def _path_method(reader: _Reader, node: ast.Call, func: ast.Attribute) -> bool:
    """``Path(p).write_text(...)`` and kin, when the receiver is a path made here."""
    receiver = func.value
    if not _pathish(reader, receiver, 0):
        return False
    verb = t.PATH_METHODS[func.attr]
    other = node.args[0] if node.args else None
    if verb == "move":
        _two(reader, verb, receiver, other)
        return True
    if verb in ("symlink", "link"):
        _two(reader, verb, other, receiver)
        return True
    if verb == "chmod":
        reader.act("chmod", receiver, _number(node.args))
        return True
    reader.act(verb, receiver)
    return True


def _pathish(reader: _Reader, node: ast.AST, depth: int) -> bool:
    """``node`` is a pathlib path: ``Path(...)``, ``Path.home() / "x"``, ``p.joinpath(...)``,
    or a name bound to one (a string's ``replace`` is not a file's)."""
    if depth > 8:
        return False
    if isinstance(node, ast.Name) and node.id in reader.values:
        return _pathish(reader, reader.values[node.id], depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _pathish(reader, node.left, depth + 1)
    if not isinstance(node, ast.Call):
        return False
    name = reader.dotted(node.func) or ""
    if name in t.PATH_MAKERS or name in t.HOME_CALLS or name.startswith("pathlib."):
        return True
    return isinstance(node.func, ast.Attribute) and node.func.attr in t.PATH_CHAINS and (
        _pathish(reader, node.func.value, depth + 1))


def _evaluate(reader: _Reader, node: ast.Call, name: str) -> None:
    payload = _arg(node, 0, "source")
    if payload is None:
        return
    code = reader.text(payload)
    if code is not None:
        if name in t.EVALUATORS and name != "runpy.run_path":
            reader.commands.append(f"python3 -c {_quote(code)}")
        return
    if hidden(reader, payload, 0):
        reader.flags.add("decoded")
    else:
        reader.flags.add("evaluates")


def hidden(reader: _Reader, node: ast.AST, depth: int) -> bool:
    """``node`` is made by decoding, decompressing, reversing or fetching text."""
    if depth > 8:
        return True  # too deep to tell: treated as hidden, the safe side
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in reader.values and sub is not node:
            if hidden(reader, reader.values[sub.id], depth + 1):
                return True
        elif isinstance(sub, ast.Name) and sub is node and sub.id in reader.values:
            return hidden(reader, reader.values[sub.id], depth + 1)
        elif isinstance(sub, ast.Subscript) and isinstance(sub.slice, ast.Slice) and (
                sub.slice.step is not None):
            return True  # s[::-1]
        elif isinstance(sub, ast.Call) and _decoder(reader, sub):
            return True
    return False


def _decoder(reader: _Reader, call: ast.Call) -> bool:
    name = reader.dotted(call.func) or ""
    last = name.rsplit(".", 1)[-1] if name else (
        call.func.attr if isinstance(call.func, ast.Attribute) else "")
    if last in t.DECODERS or name.startswith(t.DECODER_MODULES):
        return True
    if last in ("decode", "encode", "translate", "maketrans") and call.args:
        codec = reader.text(call.args[-1]) if last in ("decode", "encode") else "rot13"
        return (codec or "").lower() in t.HIDING_CODECS
    return False


def _exposes_environ(reader: _Reader, node: ast.Call) -> bool:
    """The whole of ``os.environ`` reaches an output call (``print(os.environ)``,
    ``json.dumps(dict(os.environ))``), not one value of it."""
    for sub in ast.walk(node):
        if reader.dotted(sub) not in ("os.environ", "os.environb"):
            continue
        parent = reader.parents.get(sub)
        if isinstance(parent, (ast.Subscript, ast.Compare)):
            continue
        if isinstance(parent, ast.Attribute) and parent.attr in t.ENV_READERS:
            continue
        return True
    return False


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)
