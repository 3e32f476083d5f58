#!/usr/bin/env python3
"""How fast host-priced costs are read, and repriced, at many sessions.

    bench/price_latency.py BUILD_DIR [--sessions 100000] [--base 1000]

Sweeps a corpus of BASE sessions from helix-corpus (Claude Code and Codex, as bench/run's
"many" corpus), then copies its sessions, usage rows and usage_days rows in SQL under new uids
until the store holds SESSIONS sessions (a no-op sweep then refreshes the rollup), and times:
`usage --json` (the rollup), `usage --by session --json` (usage_days), `sessions --json`, and
`prices import` of the built-in LiteLLM subset with one price changed, which prices every
session's usage again. Prints a Markdown table; takes about a minute at 100,000 sessions.
"""
import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, env, runs=1):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def copy_rows(db, table, copies, renamed):
    """Inserts `copies` copies of every row of `table`, the columns in `renamed` suffixed."""
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    exprs = [f"{c} || '~' || n.k" if c in renamed else c for c in cols]
    db.execute(f"""
        WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < {copies})
        INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join(exprs)} FROM {table}, n""")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build")
    p.add_argument("--sessions", type=int, default=100000)
    p.add_argument("--base", type=int, default=1000)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="helix-price-bench-")
    corpus = os.path.join(work, "corpus")
    subprocess.run([os.path.join(a.build, "bin/helix-corpus"), "--out", corpus, "--bytes",
                    f"{a.base * 40}KiB", "--sessions", str(a.base), "--seed", "2", "--mix",
                    "90,10,0"], check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, CLAUDE_CONFIG_DIR=f"{corpus}/claude", CODEX_HOME=f"{corpus}/codex",
               GROK_HOME=f"{work}/none", XDG_CONFIG_HOME=f"{work}/xdg", HOME=f"{work}/home", TZ="UTC")
    helix = [os.path.join(a.build, "bin/helix-host"), "--plugins",
             os.path.join(a.build, "plugins"), "--store", os.path.join(work, "store")]
    sweep = timed(helix + ["sweep", "--quiet"], env)
    db = sqlite3.connect(os.path.join(work, "store/helix.db"))
    db.execute("PRAGMA synchronous = OFF")  # a scratch store: speed over durability
    db.execute("PRAGMA cache_size = -1048576")
    base = db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
    copies = max(0, -(-a.sessions // base) - 1)  # ceil(sessions / base) - 1
    start = time.perf_counter()
    copy_rows(db, "sessions", copies, {"uid", "native_id"})
    copy_rows(db, "usage", copies, {"key", "session_uid"})
    copy_rows(db, "usage_days", copies, {"session_uid"})
    db.commit()
    copy_s = time.perf_counter() - start
    sessions, calls = (db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0],
                       db.execute("SELECT COUNT(*) FROM usage").fetchone()[0])
    db.close()
    timed(helix + ["sweep", "--quiet"], env)  # refreshes the rollup of the copied days
    rows = [("sweep of the base corpus", f"{base} sessions", sweep),
            (f"copying rows to {sessions} sessions", f"{calls} usage rows", copy_s)]
    for args in (["usage", "--json"], ["usage", "--by", "model", "--json"],
                 ["usage", "--by", "session", "--json"], ["sessions", "--json"]):
        rows.append((" ".join(args), "median of 5", timed(helix + args, env, runs=5)))
    with open(os.path.join(HERE, "../host/lib/pricing/litellm_prices.json")) as f:
        book = json.load(f)
    book["claude-opus-4-5"]["input_cost_per_token"] *= 2
    litellm = os.path.join(work, "model_prices_and_context_window.json")
    with open(litellm, "w") as f:
        json.dump(book, f)
    rows.append(("prices import (reprices every session)", f"{sessions} sessions",
                 timed(helix + ["prices", "import", litellm], env)))
    rows.append(("usage --json after the import", "median of 5",
                 timed(helix + ["usage", "--json"], env, runs=5)))
    print(f"| measure | on | seconds |\n|---|---|---|")
    for what, on, seconds in rows:
        print(f"| {what} | {on} | {seconds:.3f} |")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
