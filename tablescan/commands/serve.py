"""``tablescan serve``: the referee dashboard (waitress, threaded), bound to 127.0.0.1 unless
told otherwise. ``--demo`` plays simulated matches live into the store so the screens move."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import logging
import secrets
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from evidence import DEFAULT_DATA_DIR

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="run the referee dashboard and broadcast overlay")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument(
        "--data",
        default=None,
        help=f"the node's data directory (default {DEFAULT_DATA_DIR!r}, or $TABLESCAN_DATA; "
        "with --demo: a fresh temporary directory)",
    )
    p.add_argument("--demo", action="store_true", help="play simulated matches live")
    p.add_argument("--demo-tables", type=int, default=2)
    p.add_argument("--demo-pace", type=float, default=1.0, help="seconds between demo events")
    p.add_argument(
        "--overlay-min-delay",
        type=float,
        default=None,
        help="broadcast delay floor in seconds: no overlay link shows a play sooner "
        "(default 30, dashboard.overlay.MIN_DELAY_S; 0 turns the floor off)",
    )
    p.add_argument(
        "--overlay-delay",
        type=float,
        default=None,
        help="delay of a link that asks for none (default: the floor)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=48,
        help="server threads (each SSE stream holds one; 8 are always kept for pages)",
    )
    p.add_argument(
        "--keep-days", type=float, default=30.0, help="delete unreferenced evidence older (30)"
    )
    p.add_argument(
        "--min-free-mb",
        type=int,
        default=2048,
        help="delete oldest unreferenced evidence while the disk has less free (2048)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dashboard.app import create_app
    from dashboard.overlay import MIN_DELAY_S
    from dashboard.serving import make_server
    from dashboard.users import UserStore

    floor = MIN_DELAY_S if args.overlay_min_delay is None else args.overlay_min_delay
    if not (floor >= 0 and floor < float("inf")):
        print(
            f"tablescan serve: --overlay-min-delay {floor}: expected seconds >= 0", file=sys.stderr
        )
        return 2
    data = str(Path(args.data or DEFAULT_DATA_DIR).resolve())  # absolute once, at start-up
    if args.demo and not args.data:  # a throw-away store, removed when the server stops
        data = tempfile.mkdtemp(prefix="tablescan-demo-")
        atexit.register(shutil.rmtree, data, True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if floor < MIN_DELAY_S:
        log.warning("overlay delay floor is %g s (below the default %g s)", floor, MIN_DELAY_S)
    default = floor if args.overlay_delay is None else max(floor, args.overlay_delay)
    app = create_app(data, OVERLAY_DELAY_S=default, OVERLAY_MIN_DELAY_S=floor)
    from evidence.retention import RetentionLoop

    RetentionLoop(
        app.extensions["tablescan.hub"].store,
        max_age_s=args.keep_days * 86400,
        min_free_bytes=args.min_free_mb * 1024 * 1024,
    ).start()
    url = f"http://{args.host}:{args.port}"
    if args.demo:
        from dashboard.demo import start_demo

        hub = app.extensions["tablescan.hub"]
        demos = start_demo(hub.store, tables=args.demo_tables, pace_s=args.demo_pace)
        for demo in demos:  # atexit runs these before the rmtree registered above
            atexit.register(demo.stop)
        users = UserStore(data)
        password = secrets.token_urlsafe(9)
        users.add("demo", "head", password)
        token = users.new_overlay_token(demos[0].table, by="demo")
        print(f"demo data in {data}")
        print(f"log in at {url}/login as  demo / {password}")
        print(
            f"overlay ({floor:g} s broadcast delay): {url}/overlay/{demos[0].table}?token={token}"
        )
    elif not UserStore(data).names():
        print(f"no users yet: add one with  tablescan user add NAME --role head --data {data}")
    server = make_server(app, host=args.host, port=args.port, threads=args.threads)
    print(f"serving the dashboard on {url} (data: {data})", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    return 0
