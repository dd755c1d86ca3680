"""Bench: bounded ``verify`` (issue 27): a 1 MiB zip bomb (1 GiB inflated) and a genuine
bundle, each verified by ``tablescan verify`` in its own process; prints seconds, peak RSS
and the verdict line.

    python bench/bench_verify.py [--inflated-mib 1024]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.tractor.record_sim import simulate  # noqa: E402
from engine.tractor.rules import Rules  # noqa: E402
from evidence.bomb import write_bomb  # noqa: E402
from evidence.export import export_bundle  # noqa: E402
from evidence.store import EvidenceStore  # noqa: E402

MIB = 1 << 20


def measure(bundle: Path, env: dict[str, str]) -> tuple[float, float, int, str]:
    """(seconds, peak RSS MiB, exit code, last verdict line) of one verify process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablescan", "verify", str(bundle)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    proc.stdout.close()
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    lines = [x.strip() for x in out.splitlines() if x.strip()]
    return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), lines[-1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--inflated-mib", type=int, default=1024, help="the bomb's inflated size")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        root = Path(tmp)
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "TABLESCAN_LANG": "en",
            "TABLESCAN_KEY_DIR": str(root / "keys"),
        }
        os.environ["TABLESCAN_KEY_DIR"] = env["TABLESCAN_KEY_DIR"]
        bomb = root / "bomb.zip"
        write_bomb(bomb, args.inflated_mib * MIB)
        with EvidenceStore(root / "data", durable=False) as store:
            events, _truth = simulate(Rules.load("shanghai-2000"), seed=1, hands=1)
            for e in events:
                store.append_event("t1", e)
                store.add_media(os.urandom(60_000), table="t1", seq=e["seq"])
            genuine = root / "genuine.zip"
            export_bundle(store, "t1", genuine, report=False)
        for name, path in (("zip bomb", bomb), ("genuine bundle", genuine)):
            seconds, rss, code, line = measure(path, env)
            print(
                f"{name}: {path.stat().st_size / MIB:.2f} MiB on disk"
                + (f" ({args.inflated_mib} MiB inflated)" if path == bomb else "")
                + f", verify {seconds:.2f} s, peak RSS {rss:.0f} MiB, exit {code}"
            )
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
