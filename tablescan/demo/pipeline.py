"""``make demo``: a simulated hand rendered as an overhead video (or one rendered before),
judged live through the whole pipeline (video → recognizer → record → referee) with a
terminal view, started like every node by ``tablescan.wiring.TableApp``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from engine.record import Event, Ruling
from tablescan.demo.view import TerminalView
from tablescan.i18n import _
from tablescan.node import NodeHooks
from tablescan.recorded_presses import presses_beside
from tablescan.render import played, read_truth, render_simulated
from tablescan.wiring import TableApp, chain_hooks

MODEL = Path(__file__).resolve().parent.parent.parent / "models" / "cards.onnx"


def demo_video(
    seed: int,
    profile: str,
    out_dir: Path | None,
    split: str,
    tricks: int | None,
    stream: Any,
    video: Path | None = None,
) -> Path:
    """The demo's rendered video (with its table config), rendered once and reused."""
    if out_dir is None:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        out_dir = Path(base) / "tablescan" / "demo"
    video = video or out_dir / f"{profile}-{seed}{'' if tricks is None else f'-{tricks}t'}.mp4"
    table = video.with_name(video.stem + ".table.toml")
    if not (video.exists() and table.exists()):
        print(
            _(
                "rendering a simulated {profile} hand (seed {seed}) to {video} ...",
                profile=profile,
                seed=seed,
                video=video,
            ),
            file=stream,
        )
        render_simulated(profile, seed, video, split=split, tricks=tricks)
    return video


def demo_pipeline(
    seed: int = 1,
    profile: str = "standard",
    out_dir: Path | None = None,
    speed: float = 4.0,
    split: str = "eval",
    tricks: int | None = None,
    stream: Any = None,
    model: Path | None = None,
    video: Path | None = None,
    hooks: NodeHooks | None = None,
    labels: bool = False,
) -> int:
    """Judge a rendered hand live, ``speed`` times faster than real time (0: as fast as the
    CPU allows), and print how the reads compare with the truth.

    Offline and camera-free. Uses ``models/cards.onnx``; without it the renderer's own labels
    stand in for the recognizer, and the view says so. ``video``: replay this rendered video
    (with its ``.table.toml``/``.truth.jsonl`` beside it) instead of rendering one.
    ``hooks``: more listeners (e.g. the evidence store, so the dashboard follows the match).
    ``labels``: read the renderer's labels instead of the model (checks the rest of the chain).
    """
    stream = stream or sys.stdout
    video = demo_video(seed, profile, out_dir, split, tricks, stream, video)
    table = video.with_name(video.stem + ".table.toml")
    model_path = model or MODEL
    use_model = model_path.exists() and not labels
    if use_model:
        reader = _("recognizer {model}", model=model_path.name)
    elif labels:
        reader = _("the renderer's labels")
    else:
        reader = _("the renderer's labels ({model} not found)", model=model_path.name)
    title = _(
        "tablescan demo: {video}, profile {profile}, reader: {reader}",
        video=video.name,
        profile=profile,
        reader=reader,
    )
    view_box: list[TerminalView] = []  # the view needs the node; the node its hooks

    def on_event(ev: Event) -> None:
        if view_box:
            view_box[0].event(ev)

    def on_ruling(ev: Event, r: Ruling) -> None:
        if view_box:
            view_box[0].ruling(ev, r)

    app = TableApp(
        table,
        video=video,
        detector="model" if use_model else "labels",
        model=model_path if use_model else None,
        hooks=chain_hooks(hooks or NodeHooks(), NodeHooks(on_event=on_event, on_ruling=on_ruling)),
        evidence_dir=video.with_name(video.stem + ".evidence"),
        presses=presses_beside(video),  # Gouji: passes and buttons a seat controller enters
    )
    try:
        app.start()
        view = TerminalView(app.node, stream, title)
        view_box.append(view)
        if not view.tty:
            print(title, file=stream)
        app.run(speed=speed, each_frame=view.tick, progress=False)  # the view shows it
    finally:
        app.stop()
    view.draw(force=True)
    node = app.node
    truth = read_truth(video.with_name(video.stem + ".truth.jsonl"))
    want, got = played(truth), played(node.events)
    right = sum(a == b for a, b in zip(want, got, strict=False))
    report = node.referee.report() if node.referee is not None else {}
    if any("places" in h for h in report.get("hands", [])):  # places per deal, 头科 first
        for h in report.get("hands", []):
            order = " › ".join(f"{p} {s}" for s, p in sorted(h["places"].items(), key=_place))
            print(
                _("deal {n}: {order}; burns {b}", n=h["hand"], order=order, b=len(h["burns"])),
                file=stream,
            )
        print(
            _(
                "plays read exactly: {right}/{n}; to check: {ask}; violations {v}",
                right=right,
                n=len(want),
                ask=node.stats.needs_referee,
                v=len(report.get("violations", [])),
            ),
            file=stream,
        )
        return 0
    hand = (report.get("hands") or [{}])[0]
    found = hand.get("violations", [])
    unsure = sum(bool(v.get("provisional")) for v in found)
    print(
        "\n"
        + _(
            "plays read exactly: {right}/{n}; to check: {ask}; attackers {points} points; "
            "violations {v} (+{unsure} provisional, awaiting the referee); {outcome}",
            right=right,
            n=len(want),
            ask=node.stats.needs_referee,
            points=hand.get("attacker_points"),
            v=len(found) - unsure,
            unsure=unsure,
            outcome=outcome_text(hand.get("outcome"), list(node.cfg.seats)),
        ),
        file=stream,
    )
    return 0


def outcome_text(out: Any, seats: list[str]) -> str:
    """A deal's outcome in a sentence (the engine's dict is for machines)."""
    if not isinstance(out, dict):
        return _("no outcome yet")
    nb = out.get("next_banker")
    who = seats[nb] if isinstance(nb, int) and 0 <= nb < len(seats) else "–"
    side = _("the banker side") if out.get("side") == "banker" else _("the attackers")
    text = _(
        "{side} +{n} level(s), to {level}; next banker {who}",
        side=side,
        n=out.get("levels", 0),
        level=out.get("new_level"),
        who=who,
    )
    return text + (_("; the match is over") if out.get("game_over") else "")


def _place(item: tuple[str, str]) -> int:
    from engine.gouji.scoring import PLACE_NAMES

    return PLACE_NAMES.index(item[1]) if item[1] in PLACE_NAMES else 99
