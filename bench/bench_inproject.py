"""An everyday corpus decided inside each line's own project, as an agent working there meets it.

    python bench/bench_inproject.py [--corpus FILE] [--misses] OWNER/NAME=GIT_DIR ...

``bench_decisions.py`` decides every line in an empty workspace; what the engine reads from a
project (its ``.gitignore`` files, the packages its manifests declare, its scripts) then says
nothing. Here each line whose project is given (a git directory holding the commit its
``source`` names, e.g. a snapshot brought by ``git clone --mirror``) is decided with a checkout
of that commit as the workspace and the working directory (``git archive``, nothing run, no
dependency installed: directories a build makes are absent). Prints, per project and in all,
the lines and the share ALLOW, ASK and DENY; lines of projects not given are left out and
counted.

Corpora: ``tests/corpus/everyday_heldout2.jsonl`` by default (``--corpus`` names another of
the everyday sets); the projects' snapshots are given on the command line, never committed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from clawgate.decision import Outcome
from clawgate.engine import Engine
from clawgate.policy.settings import EngineSettings


def checkout(git_dir: str, commit: str, into: Path) -> Path:
    """The tree of ``commit`` written under ``into`` (no git metadata, nothing run). Blobs a
    snapshot lacks (its largest files may be absent) are left out; links are made as links."""
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit],
                             check=True, capture_output=True).stdout
    entries = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, path.decode("utf-8", "surrogateescape")))
    query = b"".join(sha + b"\n" for _, sha, _ in entries)
    out = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"], input=query,
                         check=True, capture_output=True).stdout
    at = 0
    for mode, _, path in entries:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        body, at = out[at : at + size], at + size + 1
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            target.symlink_to(body.decode("utf-8", "surrogateescape"))
        else:
            target.write_bytes(body)
            if mode == b"100755":
                target.chmod(0o755)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parent.parent
                        / "tests" / "corpus" / "everyday_heldout2.jsonl")
    parser.add_argument("--misses", action="store_true", help="print every line not ALLOW")
    parser.add_argument("projects", nargs="+", metavar="OWNER/NAME=GIT_DIR")
    args = parser.parse_args()
    dirs = dict(p.split("=", 1) for p in args.projects)
    with args.corpus.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    by_project: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_project.setdefault(row["source"].split("@")[0], []).append(row)
    totals: Counter[str] = Counter()
    left_out = 0
    print("| project | lines | allow | ask | deny |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="clawgate-inproject-") as scratch:
        for project, lines in sorted(by_project.items()):
            if project not in dirs:
                left_out += len(lines)
                continue
            commit = lines[0]["source"].split("@", 1)[1].split(":", 1)[0]
            root = checkout(dirs[project], commit, Path(scratch) / project.replace("/", "+"))
            engine = Engine(EngineSettings(workspace=str(root)))
            counts: Counter[str] = Counter()
            for row in lines:
                outcome = engine.check(row["command"], cwd=str(root)).outcome
                counts[outcome.label] += 1
                if args.misses and outcome is not Outcome.ALLOW:
                    print(f"MISS {project}: {outcome.label}: {row['command']!r}", file=sys.stderr)
            totals.update(counts)
            n = len(lines)
            print(f"| {project} | {n} | {counts['allow'] / n:.3f} | {counts['ask'] / n:.3f} | "
                  f"{counts['deny'] / n:.3f} |")
    n = sum(totals.values())
    if n:
        print(f"| all ({len(dirs)} projects) | {n} | {totals['allow'] / n:.3f} | "
              f"{totals['ask'] / n:.3f} | {totals['deny'] / n:.3f} |")
    if left_out:
        print(f"\n{left_out} lines of projects not given were left out")


if __name__ == "__main__":
    main()
