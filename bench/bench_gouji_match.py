"""A rendered Gouji match replayed: per deal, plays read exactly, referee prompts, silent errors
(a wrong play with no prompt or camera correction), who ended the deal (the node from the
table, or the referee's press when the reads left places open) and places against the truth;
then whether the match result equals the truth, and how many of the violations ruled are firm.

    PYTHONPATH=. python bench/bench_gouji_match.py [--profile gouji-core] [--seed 1]
        [--hands 2] [--detector labels|model] [--dir /tmp/gouji-bench] [--option deal.decks=3]

Renders once (kept in --dir), then replays through ``tablescan replay`` (which feeds in the
presses file beside the video). ``bench/bench_pipeline.py --match`` runs ``gouji_match`` too.
Prints figures only.
"""

from __future__ import annotations

import argparse
import difflib
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.gouji.referee import GoujiReferee  # noqa: E402
from engine.gouji.rules import Rules  # noqa: E402
from tablescan.commands.render_match import parse_options  # noqa: E402
from tablescan.match import rulings_of  # noqa: E402
from tablescan.render import read_truth  # noqa: E402
from tablescan.render_gouji import judged, render_simulated_gouji  # noqa: E402

Play = tuple[int, tuple[str, ...]]


def deals_of(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each deal's events, from its ``hand_start`` up to the next one."""
    out: list[list[dict[str, Any]]] = []
    for e in events:
        if e["type"] == "hand_start":
            out.append([])
        if out and e["type"] not in ("match_start", "match_end"):
            out[-1].append(e)
    return out


def ended_by(deal: list[dict[str, Any]]) -> str:
    """Who closed a deal read: the node from the table (its reads decided every place), the
    referee's press (the reads left places open), or nobody (the match ended in it)."""
    end = next((e for e in deal if e["type"] == "hand_end"), None)
    if end is None:
        return "-"
    return "referee" if end.get("reason") == "referee" else "table"


def score_deal(truth: list[dict[str, Any]], rec: list[dict[str, Any]]) -> dict[str, int]:
    """Plays aligned in order (a missed or an extra play shifts nothing after it); a wrong
    read is surfaced when a ``needs_referee`` or a correction names it, else silent."""
    t_plays: list[Play] = [
        (e["seat"], tuple(sorted(e["cards"]))) for e in truth if e["type"] == "play"
    ]
    got = [e for e in rec if e["type"] == "play"]
    g_plays: list[Play] = [(e["seat"], tuple(sorted(e["cards"]))) for e in got]
    flagged = {e.get("ref") for e in rec if e["type"] in ("needs_referee", "correction")}
    sm = difflib.SequenceMatcher(a=t_plays, b=g_plays, autojunk=False)
    matched: set[int] = set()
    for block in sm.get_matching_blocks():
        matched.update(range(block.b, block.b + block.size))
    wrong = [i for i in range(len(g_plays)) if i not in matched]
    return {
        "plays": len(t_plays),
        "exact": len(matched),
        "prompts": sum(e["type"] == "needs_referee" for e in rec),
        "silent": sum(got[i]["seq"] not in flagged for i in wrong),
    }


def gouji_match(
    profile: str,
    seed: int,
    hands: int,
    detector: str,
    folder: Path,
    options: dict[str, Any] | None = None,
) -> bool:
    """Render (once) and replay a Gouji match; print its table. True when every deal's places
    and the match result equal the truth, no error is silent, and (labels) every play is
    exact."""
    house = "".join(f"-{k}{v}" for k, v in sorted((options or {}).items()))  # an id: no "="
    video = folder / f"{profile}{house}-{seed}-{hands}.mp4"
    t0 = time.perf_counter()
    if not video.exists():
        render_simulated_gouji(profile, seed, video, hands=hands, options=options)
    render_s = time.perf_counter() - t0
    stem = video.with_suffix("")
    out = stem.with_name(f"{stem.name}.replay-{detector}.jsonl")  # not NAME.labels.jsonl
    cmd = [sys.executable, "-m", "tablescan", "replay", str(video), "--no-evidence"]
    cmd += ["--config", str(stem.with_name(stem.name + ".table.toml"))]
    cmd += ["--detector", detector, "-o", str(out)]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, check=False, capture_output=True, text=True)
    replay_s = time.perf_counter() - t0
    if done.returncode != 0:
        print(f"gouji: tablescan replay failed ({done.returncode}): {done.stderr.strip()[-400:]}")
        return False
    truth, rec = read_truth(stem.with_name(stem.name + ".truth.jsonl")), read_truth(out)
    jt, jr = judged(truth, profile), judged(rec, profile)
    t_deals, r_deals = deals_of(truth), deals_of(rec)
    print(
        f"gouji match ({profile}), seed {seed}: {len(t_deals)} deal(s) in the truth, "
        f"{len(r_deals)} read; reader = {detector}; render {render_s:.0f} s, "
        f"replay {replay_s:.0f} s"
    )
    print(
        f"  {'deal':>4} {'plays exact':>12} {'prompts':>8} {'silent':>7} {'ended by':>9}"
        "  places got / truth"
    )
    ok = len(t_deals) == len(r_deals)
    for i, td in enumerate(t_deals):
        rd = r_deals[i] if i < len(r_deals) else []
        row = score_deal(td, rd)
        want = jt["hands"][i]["finishing_order"] if i < len(jt["hands"]) else None
        got = jr["hands"][i]["finishing_order"] if i < len(jr["hands"]) else None
        ok &= got == want and row["silent"] == 0
        ended = ended_by(rd)
        ok &= detector != "labels" or (row["exact"] == row["plays"] and ended == "table")
        print(
            f"  {i + 1:>4} {row['exact']:>5}/{row['plays']:<6} {row['prompts']:>8} "
            f"{row['silent']:>7} {ended:>9}  {got} / {want} "
            f"{'equal' if got == want else 'DIFFERENT'}"
        )
    same = jr.get("match") == jt.get("match")
    ended = any(e["type"] == "match_end" for e in rec)
    ok &= same and ended
    print(
        f"  match result: {jr.get('match')} vs truth {jt.get('match')}: "
        f"{'equal' if same else 'DIFFERENT'}; match over in the record: {ended}"
    )
    # the violations as the node rules them (one on a read doubted at once: provisional),
    # not the report of the record judged afresh, which rules before it meets the doubt
    ruled = [
        r
        for r in rulings_of(GoujiReferee(Rules.load(profile, options)), rec)
        if r.get("kind") == "violation"
    ]
    firm = sum(not v.get("provisional") for v in ruled)
    ok &= detector != "labels" or firm == len(jt["violations"])
    print(
        f"  violations ruled {len(ruled)} (truth {len(jt['violations'])}), "
        f"of them firm {firm}, provisional {len(ruled) - firm}"
    )
    return ok


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="gouji-core")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--detector", choices=("labels", "model"), default="labels")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/gouji-bench"))
    ap.add_argument(
        "--option", action="append", default=[], help="a house's SECTION.KEY=VALUE (deal.decks=3)"
    )
    a = ap.parse_args()
    options = parse_options(a.option) or None
    return 0 if gouji_match(a.profile, a.seed, a.hands, a.detector, a.dir, options) else 1


if __name__ == "__main__":
    raise SystemExit(main())
