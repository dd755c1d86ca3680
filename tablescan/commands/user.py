"""``tablescan user``: dashboard accounts and overlay tokens.

``tablescan user add NAME --role head|referee|viewer`` reads the password from standard input
(one line; never from the command line, where other users could read it in the process list).
"""

from __future__ import annotations

import argparse
import getpass
import sys

from dashboard.users import ROLES, UserError, UserStore
from evidence import DEFAULT_DATA_DIR


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("user", help="manage dashboard users and overlay tokens")
    p.add_argument("--data", default=DEFAULT_DATA_DIR, help=f"data directory ({DEFAULT_DATA_DIR})")
    ops = p.add_subparsers(dest="op", metavar="OP", required=True)
    add = ops.add_parser("add", help="add a user (or reset a password); password on stdin")
    add.add_argument("name")
    add.add_argument("--role", choices=ROLES, required=True)
    add.add_argument("--data", default=argparse.SUPPRESS)
    ls = ops.add_parser("list", help="list users and roles")
    ls.add_argument("--data", default=argparse.SUPPRESS)
    tok = ops.add_parser("overlay-token", help="print a read-only overlay token for a table")
    tok.add_argument("table")
    tok.add_argument("--data", default=argparse.SUPPRESS)
    links = ops.add_parser("overlay-links", help="list a table's live overlay links (ids only)")
    links.add_argument("table")
    links.add_argument("--data", default=argparse.SUPPRESS)
    rev = ops.add_parser("overlay-revoke", help="revoke one overlay link (by id) or all of them")
    rev.add_argument("table")
    rev.add_argument("link", nargs="?", default=None, help="the link id (default: all)")
    rev.add_argument("--data", default=argparse.SUPPRESS)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    users = UserStore(args.data)
    try:
        if args.op == "add":
            if sys.stdin.isatty():
                password = getpass.getpass(f"password for {args.name}: ")
            else:
                password = sys.stdin.readline().rstrip("\r\n")
            user = users.add(args.name, args.role, password)
            print(f"user {user.name} ({user.role}) saved in {args.data}")
        elif args.op == "list":
            for u in users.names():
                print(f"{u.name}\t{u.role}")
        elif args.op == "overlay-token":
            print(users.new_overlay_token(args.table, by="cli"))
        elif args.op == "overlay-links":
            for link in users.overlay_links(args.table):
                print(f"{link.id}\t{link.made}\t{link.by}")
        elif args.op == "overlay-revoke":
            n = users.revoke_overlay(args.table, args.link)
            print(f"revoked {n} overlay link(s) of table {args.table}")
    except UserError as e:
        print(f"tablescan user: {e}", file=sys.stderr)
        return 2
    return 0
