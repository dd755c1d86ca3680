"""``tablescan demo`` (``make demo``): the main job on its embedded default, offline and with no
camera: a simulated hand rendered as an overhead video (real deck designs) is judged live through
the whole pipeline (video → recognizer → match record → referee → evidence store), shown in the
terminal and on the referee dashboard at the same time. ``--engine-only`` prints the referee's
report of simulated hands straight from the engine instead."""

from __future__ import annotations

import argparse
import contextlib
import secrets
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from engine.cards import format_cards
from engine.tractor import ProfileError, Rules
from engine.tractor.sim import SimHand, simulate_match
from tablescan.i18n import _, add_lang_option, choose, use

DEMO_TABLE = "demo"

SEATS = ("North", "West", "South", "East")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "demo", help="judge a rendered match video live, in the terminal and on the dashboard"
    )
    p.add_argument("--seed", type=int, default=1, help="dealer seed (same seed, same match)")
    p.add_argument("--profile", default="standard", help="rule profile id or TOML path")
    p.add_argument("--speed", type=float, default=4.0, help="× real time (0: as fast as possible)")
    p.add_argument("--port", type=int, default=8080, help="dashboard port (busy: any free one)")
    p.add_argument(
        "--video", type=Path, default=None, help="judge this rendered video (from render-match)"
    )
    p.add_argument(
        "--labels",
        action="store_true",
        help="read the renderer's labels instead of the model (checks the rest of the pipeline)",
    )
    p.add_argument("--no-dashboard", action="store_true", help="terminal view only")
    p.add_argument(
        "--data", type=Path, default=None, help="keep the evidence store here (default: temporary)"
    )
    p.add_argument(
        "--linger",
        type=float,
        default=None,
        help="seconds to keep the dashboard up after the hand (default: until Ctrl-C on a "
        "terminal, 0 otherwise)",
    )
    p.add_argument(
        "--engine-only", action="store_true", help="print simulated hands' reports, no video"
    )
    p.add_argument("--hands", type=int, default=4, help="with --engine-only: at most this many")
    add_lang_option(p)
    p.set_defaults(func=run)


def report_hand(h: SimHand) -> list[str]:
    """The referee's report of one simulated hand, one line per fact."""
    out = h.outcome
    assert out is not None
    team = "/".join(SEATS[s] for s in sorted(h.banker_team))
    shown = ", ".join(f"{SEATS[d.seat]} {format_cards(d.cards)}" for d in h.declarations)
    lines = [
        f"== hand {h.hand}: level {h.level}, banker {SEATS[h.banker]} ({team})",
        f"   trump: {h.trump}"
        + (f"; declared by {shown}" if shown else "; nobody declared, fixed from the bottom"),
    ]
    for i, t in enumerate(h.tricks, 1):
        plays = "  ".join(f"{SEATS[s][0]}:{format_cards(cs)}" for s, cs in t.plays)
        side = "banker" if t.winner in h.banker_team else "attackers"
        lines.append(f"   {i:2d}. {plays}  -> {SEATS[t.winner]} ({side}) {t.points} pts")
    lines.append(
        f"   bottom: {format_cards(h.buried)} = {h.bottom_points} pts, "
        + (
            f"captured x{h.multiplier} (+{h.bottom_added})"
            if h.multiplier
            else "kept by the banker side"
        )
    )
    verdict = (
        f"banker side +{out.levels} to {out.new_level}"
        if out.side == "banker"
        else f"attackers take the stage, +{out.levels} to {out.new_level}"
    )
    nb = SEATS[out.next_banker] if isinstance(out.next_banker, int) else out.next_banker
    lines.append(
        f"   attackers {h.attacker_points} pts: {verdict}; next banker {nb}"
        + (f"; knocked back to {out.knocked_back}" if out.knocked_back else "")
        + (" — game over" if out.game_over else "")
    )
    return lines


def run(args: argparse.Namespace) -> int:
    use(choose(getattr(args, "lang", None)))
    return engine_report(args) if args.engine_only else live_demo(args)


def engine_report(args: argparse.Namespace) -> int:
    try:
        rules = Rules.load(args.profile)
    except ProfileError as e:
        print(f"error: {e}")
        return 2
    match = simulate_match(rules, args.seed, max_hands=args.hands)
    print(f"Simulated 80-points match, profile {rules.id} ({rules.name}), seed {args.seed}")
    for h in match.hands:
        print("\n".join(report_hand(h)))
    teams = f"North/South {match.levels[0]}, West/East {match.levels[1]}"
    print(f"levels after {len(match.hands)} hand(s): {teams}")
    return 0


def live_demo(args: argparse.Namespace) -> int:
    from evidence.store import EvidenceStore
    from tablescan.demo.pipeline import demo_pipeline
    from tablescan.node import NodeHooks
    from tablescan.store_hooks import store_hooks

    data = args.data
    if data is None:
        data = Path(tempfile.mkdtemp(prefix="tablescan-demo-"))
    store = EvidenceStore(data)
    server = None if args.no_dashboard else _start_dashboard(data, args.port)
    try:
        code = demo_pipeline(
            seed=args.seed,
            profile=args.profile,
            speed=args.speed,
            video=args.video,
            labels=args.labels,
            hooks=NodeHooks(**store_hooks(store, DEMO_TABLE)),
        )
        if server is not None:
            _linger(args.linger)
        return code
    finally:
        if server is not None:
            server.close()
        store.close()
        if args.data is None:
            shutil.rmtree(data, ignore_errors=True)


def _start_dashboard(data: Path, port: int) -> Any:
    """The referee dashboard on 127.0.0.1 in a background thread, with a one-off login."""
    from dashboard.app import create_app
    from dashboard.serving import BackgroundServer
    from dashboard.users import UserStore

    app = create_app(data)
    try:
        server = BackgroundServer(app, port=port)
    except OSError:  # the port is taken: any free one
        server = BackgroundServer(app, port=0)
    url = server.url
    users = UserStore(data)
    password = secrets.token_urlsafe(9)
    users.add("demo", "head", password)
    token = users.new_overlay_token(DEMO_TABLE, by="demo")
    print(_("dashboard: {url}/login  (user demo, password {password})", url=url, password=password))
    overlay = f"{url}/overlay/{DEMO_TABLE}?token={token}"
    print(_("overlay:   {url}", url=overlay), flush=True)
    return server


def _linger(seconds: float | None) -> None:
    if seconds is None:
        seconds = float("inf") if sys.stdin.isatty() else 0.0
    if seconds <= 0:
        return
    print(_("the dashboard stays up: Ctrl-C to stop"), flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        threading.Event().wait(None if seconds == float("inf") else seconds)
