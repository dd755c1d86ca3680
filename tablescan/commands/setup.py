"""``tablescan setup --game 80-points|gouji --seats N -o FILE``: a commented table.toml for a
real table, which ``tablescan config check`` accepts as written.

The comments come from the config schema (``tablescan.config``), so the file explains itself
with the same words as ``docs/table-config.md``.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Any

from engine.games import games

#: ``--game`` by the name a table's organiser uses (80-points, gouji): the registry's games
GAMES = {g.setup_name or g.name: g for g in games()}
#: each seat by the index its area has (``seat0`` …): "0号位" reads as the area it names
SEAT_NAMES = {n: [f"{i}号位" for i in range(n)] for n in (4, 6)}
CARD_HEIGHT_MM = 89.0  # a poker-size card


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("setup", help="write a commented table.toml for a real table")
    p.add_argument("--game", choices=sorted(GAMES), required=True)
    p.add_argument("--seats", type=int, choices=(4, 6), default=None, help="4 or 6")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE")
    p.add_argument("--profile", default=None, help="rule profile id (tablescan profiles)")
    p.add_argument("--id", dest="table_id", default=None, help="table id (default: file name)")
    p.add_argument("--source", default="picamera2", help="camera uri (default: picamera2)")
    p.add_argument(
        "--table-size",
        type=float,
        default=900.0,
        metavar="MM",
        help="distance between the marker centres along each table edge (default 900)",
    )
    p.add_argument("--marker-size", type=float, default=70.0, metavar="MM", help="default 70")
    p.add_argument(
        "--card-height", type=float, default=CARD_HEIGHT_MM, metavar="MM", help="default 89"
    )
    p.add_argument("--force", action="store_true", help="overwrite FILE")
    p.add_argument(
        "--measure",
        action="store_true",
        help="take one frame from --source and say what card height (px) the capture mode "
        "gives, measured from the markers (the same line as tablescan doctor's cards)",
    )
    p.add_argument("--timeout", type=float, default=5.0, help="seconds for --measure's frame")
    p.set_defaults(func=setup)


def table_values(args: argparse.Namespace) -> dict[str, Any]:
    """The values the file holds (sections → keys); the rest are the schema's defaults."""
    from tablescan.config import layout_tables
    from vision.calibration import default_layout

    game = GAMES[args.game]
    n = args.seats or game.seats
    size = float(args.table_size)
    layout = default_layout(n, size, float(args.card_height))
    teams = [[i for i in range(n) if i % 2 == k] for k in range(2)]
    table: dict[str, Any] = {}
    if args.table_id:
        table["id"] = args.table_id
    table.update(
        game=game.name,
        profile=args.profile or game.default_profile,
        seats=SEAT_NAMES[n],
        teams=teams,
        levels=["2", "2"] if game.levels else ["-", "-"],
        decks=game.decks,
    )
    return {
        "table": table,
        "source": {"uri": args.source},
        "camera": {},
        "model": {"path": "models/cards.onnx"},
        "reading": {},
        "motion": {},
        "calibration": {
            "method": "aruco",
            "table_size": [size, size],
            "dictionary": "DICT_4X4_50",
            "marker_ids": [0, 1, 2, 3],
            "marker_size": float(args.marker_size),
            "card_height": float(args.card_height),
        },
        "evidence": None,  # left out: with --data the store keeps the evidence
        **layout_tables(layout),
    }


def _comment(text: str, indent: str = "") -> list[str]:
    return [f"{indent}# {line}" for line in textwrap.wrap(text, 94 - len(indent))]


def commented_toml(values: dict[str, Any], title: str) -> str:
    """``values`` as TOML, each section and key with its description from the schema; keys
    left at their default are written commented out, so every knob can be seen."""
    from tablescan.config import SECTIONS, toml_value

    out = [*_comment(title), "# Reference: docs/table-config.md. Check: tablescan config check."]
    for name, model, is_array in SECTIONS:
        given = values.get(name)
        if given is None:
            continue
        doc = (model.__doc__ or "").strip()
        rows = given if is_array else [given]
        for i, row in enumerate(rows):
            out.append("")
            if i == 0:
                out += _comment(doc)
            out.append(f"[[{name}]]" if is_array else f"[{name}]")
            for key, info in model.model_fields.items():
                if key in row:
                    if not is_array or i == 0:
                        out += _comment(info.description or "")
                    out.append(f"{key} = {toml_value(row[key])}")
                elif not is_array and info.default is not None and not info.is_required():
                    out += _comment(info.description or "")
                    out.append(f"# {key} = {toml_value(_plain(info.default))}")
    return "\n".join(out) + "\n"


def _plain(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def setup(args: argparse.Namespace) -> int:
    from tablescan.config import ConfigError, load_config

    out: Path = args.output
    if out.exists() and not args.force:
        print(f"{out}: exists; pass --force to overwrite", file=sys.stderr)
        return 2
    values = table_values(args)
    n = len(values["table"]["seats"])
    text = commented_toml(
        values,
        f"table.toml for a table of {args.game}, {n} seats, written by tablescan setup. Print the "
        "markers (tablescan markers -o markers.pdf), stick their centres on the four corners "
        f"of a {args.table_size:g} mm square, then tablescan doctor --config this file.",
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    try:
        cfg = load_config(out)
    except ConfigError as e:  # the writer and the schema disagree: say so, keep the file
        print(f"{out}: written but not accepted:\n{e}", file=sys.stderr)
        return 1
    print(f"{out}: table {cfg.table_id}, {cfg.game} ({cfg.profile}), {n} seats; checked ok")
    return measure_cards(cfg, args.timeout) if args.measure else 0


def measure_cards(cfg: Any, timeout: float) -> int:
    """The envelope line on one frame of the configured source (``doctor``'s ``cards``)."""
    from tablescan.commands.doctor import check_camera, check_cards
    from tablescan.i18n import choose, use

    use(choose(None))
    cam, image = check_camera(cfg, None, timeout)
    v = check_cards(cfg, image) if image is not None else cam
    print(v.line())
    return 1 if v.level == "fail" else 0
