"""``tablescan deck order`` and ``tablescan deck enroll``: the tournament's own deck.

``order`` prints how to lay the 54 faces and a back out (rows of 9, the order to follow);
``enroll`` cuts the faces from one overhead photo of that layout (``--layout``) or from a
folder of scans named by face (``--scans``), writes them as a render pack under ``--out``
(with each face as a PNG to check), and with ``--finetune-minutes`` tunes the classifier
and localiser on scenes of this deck mixed with the training designs (generic replay),
writing ``cards.onnx`` there for the table config's ``model``.
"""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
from pathlib import Path

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("deck", help="enroll the tournament's own deck")
    dsub = p.add_subparsers(dest="deck_cmd", required=True)
    o = dsub.add_parser("order", help="print the layout order for enrollment")
    o.set_defaults(func=run_order)
    e = dsub.add_parser("enroll", help="cut a deck's faces from a layout photo or scans")
    src = e.add_mutually_exclusive_group(required=True)
    src.add_argument("--layout", type=Path, help="overhead photo of the faces in order")
    src.add_argument("--scans", type=Path, help="folder of scans named 7C.png, BJ.png, back.png")
    e.add_argument("--name", required=True, help="the deck's name (letters and digits)")
    e.add_argument("--out", type=Path, required=True, help="folder for the enrolled deck")
    e.add_argument("--finetune-minutes", type=float, default=0.0, help="tune the model too")
    e.add_argument(
        "--train-renders",
        type=Path,
        default=Path("artifacts/pack/renders-train.tar"),
        help="packed training designs for replay (python -m models.pack_renders)",
    )
    e.set_defaults(func=run_enroll)


def run_order(args: argparse.Namespace) -> int:
    from models.enroll import LAYOUT_COLS, LAYOUT_ORDER

    print(f"Lay the faces up, apart, on a plain dark cloth, in rows of {LAYOUT_COLS}:")
    for r in range(0, len(LAYOUT_ORDER), LAYOUT_COLS):
        print(f"  row {r // LAYOUT_COLS + 1}: " + " ".join(LAYOUT_ORDER[r : r + LAYOUT_COLS]))
    print("then photograph them from above, every card whole in the frame.")
    return 0


def run_enroll(args: argparse.Namespace) -> int:
    import cv2

    from models.enroll import EnrollError, cut_layout, cut_scans, write_enrolled

    if not args.name.replace("_", "").replace("-", "").isalnum():
        log.error("--name %r: use letters, digits, - and _ only", args.name)
        return 2
    try:
        if args.layout is not None:
            img = cv2.imread(str(args.layout), cv2.IMREAD_COLOR)
            if img is None:
                raise EnrollError(f"layout {args.layout}: cannot be read as an image")
            cuts = cut_layout(img)
        else:
            cuts = cut_scans(args.scans)
    except EnrollError as e:
        log.error("%s", e)
        return 2
    pack = write_enrolled(cuts, args.name, args.out)
    bare = [c.card for c in cuts if c.card != "back" and not any(c.printed)]
    print(f"enrolled {len(cuts)} faces of {args.name}: {pack}")
    if bare:
        print(f"no corner index found on: {' '.join(bare)} (only their pictures can be read)")
    if args.finetune_minutes <= 0:
        return 0
    if not args.train_renders.is_file():
        log.error(
            "--train-renders %s: no such pack (python -m models.pack_renders)", args.train_renders
        )
        return 2
    cmd = [
        sys.executable, "-m", "models.device_train",
        "--renders", str(args.train_renders), "--enrolled", str(pack),
        "--out", str(args.out), "--minutes", str(args.finetune_minutes),
        "--eval-minutes", "0.3", "--crop", "28x40", "--device", "cpu",
        "--workers", "1", "--threads", "1", "--no-eval",
    ]  # fmt: skip
    return subprocess.run(cmd, check=False).returncode
