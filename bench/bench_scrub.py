"""clawgate's scrubber against detect-secrets on the same texts, and its time on adversarial
input.

    pip install detect-secrets==1.5.0      # not a dependency of clawgate; only this bench
    python bench/bench_scrub.py [--rounds 3]

Corpora: ``clawgate.testing.secret_corpus`` (fake credentials drawn at run time, never printed):

- planted: one credential per format (85 formats, 79 kinds: provider keys and tokens, URL and
  command-line passwords, ``.netrc``, kubeconfig, PEM bodies ...) in the context a tool prints
  it. Recall: the share whose secret no longer appears in the output (clawgate) or that
  detect-secrets reports a finding on the text for (its own filters on: the way
  ``detect-secrets scan`` runs). clawgate's redaction must also name the expected kind.
- ordinary: git logs, ``rev-parse``, ``ls-remote``, object names, hashes, UUIDs, base64 of
  plain data, lock-file integrity hashes, ``ls``/``ps``/``kubectl`` output, prose. False
  positives: the share of texts changed (clawgate) or reported (detect-secrets).
- speed: median wall time of one pass over both corpora, and of a 1 MiB build log; then
  clawgate alone on adversarial text (``a://`` and others repeated) at 64 KiB, 256 KiB and
  1 MiB, where linear work grows four times per step.

detect-secrets runs twice: with its default plugins, and without its two entropy plugins
(which account for most of its false positives on hashes).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from clawgate.testing.secret_corpus import ordinary, planted
from clawgate.tools.scrub import Scrubber, digest

ADVERSARIAL = ["a://", "x://a:", "token ", "cookie: a=", "user:\n token: ", "MII", "sig=",
               "machine a password ", "authorization: token "]


def log_mib() -> str:
    line = "[12:00:01] INFO building target //src:lib (3f2504e0-4f89-11d3) ok 12.3 ms\n"
    return line * ((1 << 20) // len(line))


class DetectSecrets:
    """detect-secrets 1.5 run the way ``detect-secrets scan FILE`` runs: its plugins and
    filters, on a file (``output.txt``, so that no lock-file filter applies)."""

    def __init__(self, *, entropy: bool) -> None:
        from detect_secrets.core.secrets_collection import SecretsCollection
        from detect_secrets.settings import default_settings, get_settings

        self._collection = SecretsCollection
        self._context = default_settings
        self._get_settings = get_settings
        self._entropy = entropy
        self._dir = tempfile.TemporaryDirectory()

    def findings(self, text: str) -> int:
        path = Path(self._dir.name) / "output.txt"
        path.write_text(text)
        with self._context():
            if not self._entropy:
                self._get_settings().disable_plugins(
                    "Base64HighEntropyString", "HexHighEntropyString")
            found = self._collection()
            found.scan_file(str(path))
            return sum(len(s) for _, s in found.data.items())


def measure(name: str, hits: Callable[[str, str | None], bool], rounds: int) -> None:
    cases, clean = planted(), ordinary()
    recall = sum(hits(c.text, c.secret) for c in cases)
    false = sum(hits(text, None) for _, text in clean)
    missed = [c.name for c in cases if not hits(c.text, c.secret)]
    flagged = [n for n, text in clean if hits(text, None)]
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for c in cases:
            hits(c.text, c.secret)
        for _, text in clean:
            hits(text, None)
        times.append(time.perf_counter() - start)
    log = log_mib()
    start = time.perf_counter()
    hits(log, None)
    big = time.perf_counter() - start
    print(f"{name:34} recall {recall}/{len(cases)}  false positives {false}/{len(clean)}  "
          f"pass {statistics.median(times) * 1000:7.1f} ms  1 MiB log {big * 1000:8.1f} ms")
    print(f"{'':34} missed: {', '.join(missed) or '-'}")
    print(f"{'':34} flagged: {', '.join(flagged) or '-'}")


def kinds(scrubber: Scrubber) -> None:
    cases = planted()
    wrong = [c.name for c in cases
             if f"[REDACTED:{c.kind}:{digest(c.secret)}]" not in scrubber.scrub(c.text)]
    print(f"{'':34} redacted under the expected kind: {len(cases) - len(wrong)}/{len(cases)}"
          f"{'  (not: ' + ', '.join(wrong) + ')' if wrong else ''}")


def capped(scrubber: Scrubber) -> None:
    log = log_mib()
    start = time.perf_counter()
    scrubber.scrub_capped(log, 65536)
    took = time.perf_counter() - start
    print(f"{'':34} 1 MiB log as the Guard scrubs a result (head and tail of 64 KiB): "
          f"{took * 1000:.1f} ms")


def adversarial(scrubber: Scrubber) -> None:
    print("clawgate on adversarial text (seconds; linear work grows 4x per column):")
    print(f"  {'fragment':26}{'64 KiB':>10}{'256 KiB':>10}{'1 MiB':>10}")
    for fragment in ADVERSARIAL:
        row = []
        for size in (1 << 16, 1 << 18, 1 << 20):
            text = fragment * (size // len(fragment))
            start = time.perf_counter()
            scrubber.scrub(text)
            row.append(time.perf_counter() - start)
        print(f"  {fragment!r:26}" + "".join(f"{t:10.3f}" for t in row))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    scrubber = Scrubber()

    def clawgate(text: str, secret: str | None) -> bool:
        out = scrubber.scrub(text)
        return out != text if secret is None else secret not in out

    measure("clawgate Scrubber", clawgate, args.rounds)
    kinds(scrubber)
    capped(scrubber)
    adversarial(scrubber)
    try:
        import detect_secrets  # noqa: F401
    except ImportError:
        print("detect-secrets is not installed: pip install detect-secrets==1.5.0")
        return 0
    for entropy in (True, False):
        tool = DetectSecrets(entropy=entropy)

        def detect(text: str, secret: str | None, tool: DetectSecrets = tool) -> bool:
            return tool.findings(text) > 0

        label = "detect-secrets 1.5 " + ("(default)" if entropy else "(no entropy)")
        measure(label, detect, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
