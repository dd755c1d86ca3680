"""Pipeline bench: rendered hands with held-out deck designs, replayed through the table node.

Prints, per hand and in total: play events exactly right (seat and cards), wrong plays surfaced
as ``needs_referee`` vs silent, plays missed, final attacker points vs the truth, latency from
the first still frame to the event (median), and replay frames/s.

    .venv/bin/python bench/bench_pipeline.py            # 2 hands (a few minutes)
    .venv/bin/python bench/bench_pipeline.py --full     # the 10-hand run of the issue's bars
    .venv/bin/python bench/bench_pipeline.py --detector labels   # pipeline alone (no recognizer)
    .venv/bin/python bench/bench_pipeline.py --split train --seed 200   # training designs:
                                        # where pipeline settings are chosen, never on held-out
    .venv/bin/python bench/bench_pipeline.py --match [--match-hands 3]   # a whole match in one
                                        # run, both games: per hand plays, prompts, silent
                                        # errors, points and levels (80 points) or places
                                        # (Gouji, bench_gouji_match.py) against the truth,
                                        # and the match result

    .venv/bin/python bench/bench_pipeline.py --frame-cost   # the recognizer's time per
                                        # 1280×720 frame of a rendered hand, 1 and 2 threads:
                                        # the whole frame, and one seat area (what the node
                                        # spends on each frame of cards landing)

Each run also prints how many frames the recognizer read and its mean time per frame read:
with ``[reading] every_frame = true`` the node reads a seat area in every frame while its
cards land (off by default).

Renders go to ``renders/bench/`` (``renders/bench-train/``; git-ignored), reused when there.
The latency histogram goes to ``artifacts/bench/pipeline_latency.png`` (git-ignored).
"""

from __future__ import annotations

import argparse
import difflib
import logging
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.games import referee_for  # noqa: E402
from engine.record import apply_corrections  # noqa: E402
from tablescan.config import load_config  # noqa: E402
from tablescan.render import read_truth, render_simulated  # noqa: E402
from tablescan.wiring import Detector, build_node, load_detector, run_source  # noqa: E402
from vision.plots import latency_png  # noqa: E402
from vision.sources import open_source  # noqa: E402
from vision.synth.labels import LabelDetector  # noqa: E402

Play = tuple[int, tuple[str, ...]]
PLOTS = ROOT / "artifacts" / "bench"


def plot_latency(series: dict[str, list[float]], name: str, title: str) -> None:
    """The latency histogram beside the printed medians (a picture to look at, not a bar)."""
    if any(series.values()):
        print(f"latency histogram: {latency_png(series, PLOTS / name, title)}")


def plays_of(events: list[dict[str, Any]]) -> list[tuple[int, Play]]:
    return [
        (e["seq"], (e["seat"], tuple(sorted(e["cards"]))))
        for e in apply_corrections(events)
        if e["type"] == "play"
    ]


def attacker_points(events: list[dict[str, Any]]) -> int | None:
    ref = referee_for(next(e for e in events if e["type"] == "match_start"))
    for e in events:
        ref.feed(e)
    hands = ref.report().get("hands") or []
    return hands[0].get("attacker_points") if hands else None


def score_hand(truth: list[dict[str, Any]], got: list[dict[str, Any]]) -> dict[str, Any]:
    t_plays = [p for _, p in plays_of(truth)]
    g = plays_of(got)
    g_plays = [p for _, p in g]
    flagged = {e["ref"] for e in got if e["type"] == "needs_referee"}
    sm = difflib.SequenceMatcher(a=t_plays, b=g_plays, autojunk=False)
    matched_g: set[int] = set()
    exact = 0
    for block in sm.get_matching_blocks():
        exact += block.size
        matched_g.update(range(block.b, block.b + block.size))
    wrong = [i for i in range(len(g_plays)) if i not in matched_g]
    surfaced = sum(g[i][0] in flagged for i in wrong)
    silent_plays = [
        {"seq": g[i][0], "seat": g[i][1][0], "cards": list(g[i][1][1])}
        for i in wrong
        if g[i][0] not in flagged
    ]
    right_flagged = sum(g[i][0] in flagged for i in matched_g)
    missed = max(0, len(t_plays) - exact - len(wrong))
    return {
        "plays": len(t_plays),
        "exact": exact,
        "wrong": len(wrong),
        "surfaced": surfaced,
        "silent": len(wrong) - surfaced,
        "silent_plays": silent_plays,
        "missed": max(0, missed),
        "flagged_right": right_flagged,
        "points_truth": attacker_points(truth),
        "points_got": attacker_points(got),
    }


def split_hands(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each deal's events (from its hand_start to the next), each led by the match_start."""
    start = next(e for e in events if e["type"] == "match_start")
    out: list[list[dict[str, Any]]] = []
    for e in events:
        if e["type"] == "hand_start":
            out.append([start])
        if out and e["type"] not in ("match_start", "match_end"):
            out[-1].append(e)
    return out


def judged(events: list[dict[str, Any]]) -> tuple[list[Any], dict[str, Any]]:
    """(each deal's levels after, the match result) as the referee judges the whole record."""
    from tablescan.match import match_result

    ref = referee_for(next(e for e in events if e["type"] == "match_start"))
    for e in events:
        ref.feed(e)
    hands = ref.report().get("hands") or []
    return [h.get("levels_after") for h in hands], match_result(ref)


def bench_match(args: argparse.Namespace, kind: str, out: Path) -> int:
    """One rendered match (``--match-hands`` deals) replayed through one node, to its end:
    80-points here, then Gouji (``bench.bench_gouji_match``)."""
    from bench.bench_gouji_match import gouji_match

    ok = tractor_match(args, kind, out)
    ok &= gouji_match(args.gouji_profile, args.gouji_seed, args.gouji_hands, kind, out)
    return 0 if ok else 1


def tractor_match(args: argparse.Namespace, kind: str, out: Path) -> bool:
    """The 80-points match of ``bench_match``: per deal, plays read exactly, prompts, silent
    errors, points and levels against the truth."""
    ok = True
    game, profile = "tractor", "standard"
    seed = args.seed
    video = out / f"match{seed}x{args.match_hands}.mp4"
    t0 = time.perf_counter()
    if not (video.exists() and video.with_name(video.stem + ".table.toml").exists()):
        render_simulated(profile, seed, video, split=args.split, hands=args.match_hands)
    render_s = time.perf_counter() - t0
    cfg = load_config(video.with_name(video.stem + ".table.toml"))
    detector: Detector = (
        LabelDetector.beside(video) if kind == "labels" else load_detector(cfg, args.model)
    )
    node = build_node(cfg, detector, keep_evidence=False)
    stats = run_source(node, open_source(str(video), cfg.fps))
    truth = read_truth(video.with_name(video.stem + ".truth.jsonl"))
    t_hands, g_hands = split_hands(truth), split_hands(node.events)
    t_levels, t_result = judged(truth)
    g_levels, g_result = judged(node.events)
    print(
        f"{game} match, seed {seed}: {len(t_hands)} hand(s) in the truth, {len(g_hands)} "
        f"read; reader = {kind}; render {render_s:.0f} s, replay {stats.frames} frames at "
        f"{stats.frames / max(stats.wall_s, 1e-9):.0f} frames/s"
    )
    head = (
        f"  {'hand':>4} {'plays exact':>12} {'prompts':>8} {'silent':>7} "
        f"{'points got/truth':>17} {'levels got':>11} {'levels truth':>13}"
    )
    print(head)
    for i, th in enumerate(t_hands):
        gh = g_hands[i] if i < len(g_hands) else [truth[0]]
        row = score_hand(th, gh)
        prompts = sum(e["type"] == "needs_referee" for e in gh)
        got_lv = g_levels[i] if i < len(g_levels) else None
        want_lv = t_levels[i] if i < len(t_levels) else None
        ok &= got_lv == want_lv and (kind != "labels" or row["exact"] == row["plays"])
        ok &= row["silent"] == 0
        print(
            f"  {i + 1:>4} {row['exact']:>5}/{row['plays']:<6} {prompts:>8} "
            f"{row['silent']:>7} {str(row['points_got']) + '/' + str(row['points_truth']):>17} "
            f"{':'.join(got_lv or ['-']):>11} {':'.join(want_lv or ['-']):>13}"
        )
    same = g_result == t_result and len(g_hands) == len(t_hands)
    ok &= same
    print(f"  match result: {g_result} vs truth {t_result}: {'equal' if same else 'DIFFERENT'}")
    ended = [any(e["type"] == "match_end" for e in r) for r in (node.events, truth)]
    print(f"  match over in the record: {ended[0]} (truth: {ended[1]})")
    plot_latency(
        {"first still frame -> event": stats.latency_ms},
        "pipeline_match_latency.png",
        f"{game} match, seed {seed}: latency ({kind})",
    )
    return ok


def frame_cost(video: Path, cfg: Any, model: Path) -> None:
    """The recognizer's ms per 1280×720 frame (median of busy frames of ``video``), with one
    and two onnxruntime threads: the whole frame, and one seat area from its crop."""
    import cv2
    import numpy as np

    from tablescan.wiring import calibrate, layout_from_config
    from vision.detect import CardDetector

    cap = cv2.VideoCapture(str(video))
    frames = []
    i = 0
    while len(frames) < 12:
        ok, img = cap.read()
        if not ok:
            break
        if i % 60 == 30:
            frames.append(cv2.resize(img, (1280, 720)) if img.shape[1] != 1280 else img)
        i += 1
    cap.release()
    if not frames:
        print("frame cost: no frame in the video")
        return
    cal = calibrate(cfg, frames[0])
    area = next(a for a in layout_from_config(cfg).areas if a.seat is not None)
    poly = cal.to_image(area.polygon)
    (x0, y0), (x1, y1) = poly.min(0), poly.max(0)
    m = max(48.0, 0.35 * max(x1 - x0, y1 - y0))
    box = (int(x0 - m), int(y0 - m), int(x1 + m) + 1, int(y1 + m) + 1)
    for threads in (1, 2):
        det = CardDetector(str(model), threads=threads)
        for name, read in (
            ("whole frame", det.detect),
            ("one seat area", partial(det.detect_region, box=box)),
        ):
            read(frames[0])
            times, cpu = [], []
            for f in frames * 2:
                t, c = time.perf_counter(), time.process_time()
                read(f)
                times.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
            print(
                f"recognizer, 1280x720 frame, {threads} thread(s), {name}: "
                f"median {statistics.median(times):.1f} ms, p90 {np.percentile(times, 90):.1f} ms "
                f"(CPU {statistics.median(cpu):.1f} ms: on a shared machine the steadier figure)"
            )


def truth_gap_ms(truth: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[float]:
    """Video-time gap between each play's true settle time and the frame that wrote it."""
    t_by: dict[Play, list[float]] = {}
    for e in truth:
        if e["type"] == "play":
            t_by.setdefault((e["seat"], tuple(sorted(e["cards"]))), []).append(e["t"])
    gaps = []
    for e in got:
        if e["type"] == "play":
            ts = t_by.get((e["seat"], tuple(sorted(e["cards"]))))
            if ts:
                gaps.append((e["t"] - ts.pop(0)) * 1000)
    return gaps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--full", action="store_true", help="10 hands (the issue's bars)")
    ap.add_argument("--seed", type=int, default=100, help="first seed")
    ap.add_argument("--show-silent", action="store_true", help="list each silent wrong play")
    ap.add_argument("--detector", choices=("auto", "model", "labels"), default="auto")
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "cards.onnx")
    ap.add_argument(
        "--split",
        choices=("eval", "train"),
        default="eval",
        help="deck designs: held-out (the bars) or training ones (to choose settings on)",
    )
    ap.add_argument(
        "--out", type=Path, default=None, help="renders (default renders/bench[-train])"
    )
    ap.add_argument("--match", action="store_true", help="one whole match through one node")
    ap.add_argument(
        "--frame-cost",
        action="store_true",
        help="only the recognizer's ms per 1280x720 frame, 1 and 2 threads (the first hand)",
    )
    ap.add_argument("--match-hands", type=int, default=3, help="deals in the --match render")
    ap.add_argument("--gouji-profile", default="gouji-core", help="the --match Gouji sheet")
    ap.add_argument("--gouji-seed", type=int, default=1, help="the --match Gouji render's seed")
    ap.add_argument("--gouji-hands", type=int, default=2, help="deals in the --match Gouji render")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    hands = 10 if args.full else args.hands
    out: Path = args.out or ROOT / "renders" / ("bench" if args.split == "eval" else "bench-train")
    model: Path = args.model
    kind = args.detector
    if kind == "auto":
        kind = "model" if model.exists() else "labels"
        if kind == "labels":
            print("models/cards.onnx not found: measuring the pipeline with the renderer's labels")
    if args.match:
        return bench_match(args, kind, out)
    if args.frame_cost:
        video = out / f"hand{args.seed}.mp4"
        if not (video.exists() and video.with_name(video.stem + ".table.toml").exists()):
            render_simulated("standard", args.seed, video, split=args.split)
        frame_cost(video, load_config(video.with_name(video.stem + ".table.toml")), model)
        return 0
    designs = "held-out" if args.split == "eval" else "training"
    print(f"pipeline bench: {hands} hand(s), {designs} designs, reader = {kind}")
    rows = []
    lat: list[float] = []
    gaps: list[float] = []
    frames = 0
    wall = 0.0
    read_ms: list[float] = []
    for i in range(hands):
        seed = args.seed + i
        video = out / f"hand{seed}.mp4"
        t0 = time.perf_counter()
        if not (video.exists() and video.with_name(video.stem + ".table.toml").exists()):
            render_simulated("standard", seed, video, split=args.split)
        render_s = time.perf_counter() - t0
        cfg = load_config(video.with_name(video.stem + ".table.toml"))
        detector: Detector = (
            LabelDetector.beside(video) if kind == "labels" else load_detector(cfg, model)
        )
        node = build_node(cfg, detector, keep_evidence=False)
        stats = run_source(node, open_source(str(video), cfg.fps))
        truth = read_truth(video.with_name(video.stem + ".truth.jsonl"))
        row = score_hand(truth, node.events)
        row.update(
            seed=seed,
            fps=stats.frames / stats.wall_s,
            latency=statistics.median(stats.latency_ms) if stats.latency_ms else float("nan"),
            render_s=render_s,
        )
        rows.append(row)
        lat += stats.latency_ms
        gaps += truth_gap_ms(truth, node.events)
        frames += stats.frames
        wall += stats.wall_s
        read_ms += node.stats.read_ms
        print(
            f"  seed {seed}: plays {row['exact']}/{row['plays']} exact, wrong {row['wrong']} "
            f"(surfaced {row['surfaced']}, silent {row['silent']}), missed {row['missed']}, "
            f"right-but-flagged {row['flagged_right']}, points {row['points_got']} vs truth "
            f"{row['points_truth']}, latency median {row['latency']:.0f} ms, "
            f"replay {row['fps']:.0f} frames/s (render {render_s:.0f} s)",
            flush=True,
        )
        if args.show_silent:
            for sp in row["silent_plays"]:
                print(f"    silent: seq {sp['seq']} seat {sp['seat']} read {' '.join(sp['cards'])}")
    plays = sum(r["plays"] for r in rows)
    exact = sum(r["exact"] for r in rows)
    wrong = sum(r["wrong"] for r in rows)
    silent = sum(r["silent"] for r in rows)
    points_ok = sum(r["points_got"] == r["points_truth"] for r in rows)
    print(f"play events exactly right: {exact}/{plays} = {100 * exact / max(1, plays):.2f}%")
    print(f"wrong plays: {wrong}, surfaced as needs_referee: {wrong - silent}, silent: {silent}")
    print(f"plays missed: {sum(r['missed'] for r in rows)}")
    print(f"final points identical to the truth: {points_ok}/{len(rows)} hands")
    if lat:
        print(f"latency first still frame -> event: median {statistics.median(lat):.0f} ms")
    if gaps:
        print(f"video-time gap true settle -> event frame: median {statistics.median(gaps):.0f} ms")
    print(f"replay throughput: {frames / wall:.0f} frames/s ({frames} frames)")
    if read_ms:
        print(
            f"recognizer: {len(read_ms)} of {frames} frames read "
            f"({100 * len(read_ms) / max(1, frames):.0f}%), mean {statistics.mean(read_ms):.1f} ms "
            f"per frame read"
        )
    plot_latency(
        {"first still frame -> event": lat, "video time, true settle -> event frame": gaps},
        "pipeline_latency.png",
        f"pipeline latency, {hands} hand(s), {designs} designs, reader = {kind}",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
