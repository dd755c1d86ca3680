"""``tablescan desk``: the referee desk of a tournament hall. Subscribes to every table of the
hall through the broker, keeps their records in its own store, and serves the referee
dashboard for the whole hall (offline and late tables marked)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from evidence import DEFAULT_DATA_DIR

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("desk", help="the hall's referee desk: every table through the broker")
    p.add_argument("--broker", required=True, help="mqtt://host:1883 or mqtts://host:8883")
    p.add_argument("--data", default=DEFAULT_DATA_DIR, help="the desk's own data directory")
    p.add_argument("--hall", default="hall", help="hall name in the topics (default 'hall')")
    p.add_argument("--user", default="desk", help="the desk's broker user (default 'desk')")
    p.add_argument("--password-file", type=Path, help="file with the desk's broker password")
    p.add_argument("--ca-file", type=Path, help="CA certificate for mqtts://")
    p.add_argument("--cert-file", type=Path, help="client certificate (mqtts://, optional)")
    p.add_argument("--key-file", type=Path, help="client key (mqtts://, optional)")
    p.add_argument("--key-dir", help="where the desk's key (desk.key) lives (evidence.keys)")
    p.add_argument("--late-s", type=float, default=15.0, help="silent this long: late (15)")
    p.add_argument("--host", default="127.0.0.1", help="dashboard address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="dashboard port (default 8080)")
    p.add_argument("--threads", type=int, default=48, help="server threads (each SSE holds one)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import waitress

    from dashboard.app import create_app
    from dashboard.users import UserStore
    from evidence import EvidenceStore
    from hall.config import HallConfig, HallConfigError
    from hall.desk import Desk
    from hall.desk_hub import DeskHub

    try:
        cfg = HallConfig(
            broker=args.broker,
            hall=args.hall,
            username=args.user,
            password_file=args.password_file,
            ca_file=args.ca_file,
            cert_file=args.cert_file,
            key_file=args.key_file,
        )
    except HallConfigError as e:
        print(f"tablescan desk: {e}", file=sys.stderr)
        return 2
    Path(args.data).mkdir(parents=True, exist_ok=True)
    # The desk is a replica: without an fsync per append a power cut loses at most the last
    # commits (one WAL: the ledger never runs ahead of the store), and the desk asks the
    # tables for them again; the nodes' own stores stay fully durable.
    from evidence.keys import DESK_KEY

    store = EvidenceStore(
        args.data, durable=False, sign_every_s=1.0, key_dir=args.key_dir, key_name=DESK_KEY
    )
    hub = DeskHub(store)
    app = create_app(args.data, hub=hub)
    desk = Desk(
        hub.store,
        cfg,
        user=args.user,
        late_s=args.late_s,
        on_change=hub.changed,
        key_dir=args.key_dir,
    )
    hub.desk = desk
    desk.start()
    if not UserStore(args.data).names():
        print(f"no users yet: add one with  tablescan user add NAME --role head --data {args.data}")
    print(
        f"desk of hall {cfg.hall!r} on {cfg.broker}; dashboard on http://{args.host}:{args.port}"
        f" (data: {args.data})",
        flush=True,
    )
    try:
        waitress.serve(app, host=args.host, port=args.port, threads=args.threads, ident="tablescan")
    finally:
        desk.stop()
    return 0
