"""A rendered Gouji match replayed: per deal, places and burns against the truth; plays read
exactly, referee prompts and silent errors (a wrong play with no prompt or camera correction).

    PYTHONPATH=. python bench/bench_gouji_match.py [--profile gouji-core] [--seed 1]
        [--hands 2] [--detector labels|model] [--dir /tmp/gouji-bench]

Renders once (kept in --dir), then replays through ``tablescan replay``. Prints figures only.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from tablescan.render import read_truth
from tablescan.render_gouji import judged, render_simulated_gouji


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="gouji-core")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--detector", choices=("labels", "model"), default="labels")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/gouji-bench"))
    a = ap.parse_args()
    video = a.dir / f"{a.profile}-{a.seed}-{a.hands}.mp4"
    if not video.exists():
        render_simulated_gouji(a.profile, a.seed, video, hands=a.hands)
    stem = video.with_suffix("")
    out = stem.with_name(f"{stem.name}.{a.detector}.jsonl")
    cmd = [sys.executable, "-m", "tablescan", "replay", str(video), "--no-evidence"]
    cmd += ["--config", str(stem.with_name(stem.name + ".table.toml"))]
    cmd += ["--detector", a.detector, "-o", str(out)]
    subprocess.run(cmd, check=False, capture_output=True)
    truth, rec = read_truth(stem.with_name(stem.name + ".truth.jsonl")), read_truth(out)
    jt, jr = judged(truth, a.profile), judged(rec, a.profile)
    for ht, hr in zip(jt["hands"], jr["hands"], strict=False):
        same = ht["finishing_order"] == hr["finishing_order"]
        burns = [b["seat"] for b in ht["burns"]] == [b["seat"] for b in hr["burns"]]
        print(
            f"deal {ht['hand']}: places {hr['finishing_order']} (truth {ht['finishing_order']}, "
            f"{'equal' if same else 'DIFFERENT'}); burns {'equal' if burns else 'DIFFERENT'}"
        )
    tp = [e for e in truth if e["type"] == "play"]
    rp = [e for e in rec if e["type"] == "play"]
    flagged = {e["ref"] for e in rec if e["type"] in ("needs_referee", "correction") and "ref" in e}
    wrong = [
        b
        for x, b in zip(tp, rp, strict=False)
        if (x["seat"], sorted(x["cards"])) != (b["seat"], sorted(b["cards"]))
    ]
    silent = [b for b in wrong if b["seq"] not in flagged]
    prompts = sum(e["type"] == "needs_referee" for e in rec)
    print(
        f"{a.detector}: plays exact {len(tp) - len(wrong)}/{len(tp)} (read {len(rp)}); "
        f"referee prompts {prompts}; silent errors {len(silent)}; "
        f"violations ruled {len(jr['violations'])} (truth {len(jt['violations'])}), "
        f"of them firm {sum(not v.get('provisional') for v in jr['violations'])}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
