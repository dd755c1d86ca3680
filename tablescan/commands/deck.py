"""``tablescan deck order`` and ``tablescan deck enroll``: the tournament's own deck.

``order`` prints how to lay the 54 faces and a back out (rows of 9, the order to follow;
``--captures``: the three table-camera layouts of 18); ``capture`` saves a frame of one of
those layouts from the table's camera once it sees every card of it; ``enroll`` cuts the
faces from one overhead photo of that layout (``--layout``), from a folder of scans named by face
(``--scans``) or from frames of the table's own camera (``--captures``, issue 26 item 5),
writes them as a render pack under ``--out`` (with each face as a PNG to check), and with
``--finetune-minutes`` tunes the model, writing ``cards.onnx`` there for the table
config's ``model``: from a photo or scans the classifier and localiser on scenes of this
deck mixed with the training designs (generic replay); from captures the classifier alone,
on the localiser's own crops of the captures and of scenes of this deck
(``models.runtime_train``).
"""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from models.enroll import Cut
    from models.enroll_capture import CaptureRead

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("deck", help="enroll the tournament's own deck")
    dsub = p.add_subparsers(dest="deck_cmd", required=True)
    o = dsub.add_parser("order", help="print the layout order for enrollment")
    o.add_argument("--captures", action="store_true", help="the layouts for table-camera captures")
    o.set_defaults(func=run_order)
    c = dsub.add_parser("capture", help="save a frame of one capture layout from the camera")
    c.add_argument("--layout", type=int, required=True, help="the layout on the table (1-3)")
    c.add_argument("--out", type=Path, required=True, help="the captures folder")
    c.add_argument("--config", type=Path, default=None, help="the table's config (its source)")
    c.add_argument("--source", default=None, help="camera uri (default: the config's)")
    c.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for a frame")
    c.add_argument("--model", type=Path, default=None, help="the model whose localiser reads it")
    c.set_defaults(func=run_capture)
    e = dsub.add_parser("enroll", help="cut a deck's faces from a layout photo or scans")
    src = e.add_mutually_exclusive_group(required=True)
    src.add_argument("--layout", type=Path, help="overhead photo of the faces in order")
    src.add_argument("--scans", type=Path, help="folder of scans named 7C.png, BJ.png, back.png")
    src.add_argument(
        "--captures", type=Path, help="folder of table-camera frames named 1.png, 2-b.jpg, ..."
    )
    e.add_argument("--name", required=True, help="the deck's name (letters and digits)")
    e.add_argument("--out", type=Path, required=True, help="folder for the enrolled deck")
    e.add_argument("--finetune-minutes", type=float, default=0.0, help="tune the model too")
    e.add_argument(
        "--train-renders",
        type=Path,
        default=Path("artifacts/pack/renders-train.tar"),
        help="packed training designs for replay (python -m models.pack_renders)",
    )
    e.add_argument(
        "--model", type=Path, default=None, help="the model whose localiser reads the captures"
    )
    e.set_defaults(func=run_enroll)


def run_order(args: argparse.Namespace) -> int:
    from models.enroll import LAYOUT_COLS, LAYOUT_ORDER

    if args.captures:
        from models.enroll_capture import CAPTURE_COLS, CAPTURE_LAYOUTS

        print(
            f"Lay each layout face up, upright, apart, in rows of {CAPTURE_COLS}, the first "
            "row at the top of the table camera's picture, and save one or more frames of "
            "it named by its number (1.png, 1-b.png, 2.png, ...):"
        )
        for n, lay in enumerate(CAPTURE_LAYOUTS, 1):
            print(f"  layout {n}:")
            for r in range(0, len(lay), CAPTURE_COLS):
                print("    " + " ".join(lay[r : r + CAPTURE_COLS]))
        return 0
    print(f"Lay the faces up, apart, on a plain dark cloth, in rows of {LAYOUT_COLS}:")
    for r in range(0, len(LAYOUT_ORDER), LAYOUT_COLS):
        print(f"  row {r // LAYOUT_COLS + 1}: " + " ".join(LAYOUT_ORDER[r : r + LAYOUT_COLS]))
    print("then photograph them from above, every card whole in the frame.")
    return 0


def run_capture(args: argparse.Namespace) -> int:
    """One frame of the table camera, read at once: saved as the next ``N.png``/``N-k.png``
    of ``--out`` when every place of layout N holds a card it can see, else refused with
    what is missing (nothing saved: lay it right and run again)."""
    import cv2
    import numpy as np

    from models.enroll_capture import CAPTURE_LAYOUTS, CaptureError, read_capture
    from tablescan.commands.doctor import check_camera, check_config
    from vision.detect import DEFAULT_MODEL, CardDetector

    if not 1 <= args.layout <= len(CAPTURE_LAYOUTS):
        log.error("--layout %d: the layouts are 1 to %d", args.layout, len(CAPTURE_LAYOUTS))
        return 2
    cfg = None
    if args.config is not None:
        conf, cfg = check_config(args.config)
        if cfg is None:
            log.error("%s", conf.line())
            return 2
    cam, img = check_camera(cfg, args.source, args.timeout)
    if img is None:  # no source named (warn) or none that gave a frame (fail)
        log.error("%s", cam.line())
        return 2 if cam.level == "warn" else 1
    det = CardDetector(args.model or DEFAULT_MODEL, threads=1)
    try:
        _, _, info = read_capture(
            img, args.layout, det, np.random.default_rng(0), f"layout {args.layout}"
        )
    except CaptureError as e:
        log.error("%s; nothing saved", e)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    path, k = args.out / f"{args.layout}.png", 1
    while path.exists():
        k += 1
        path = args.out / f"{args.layout}-{k}.png"
    cv2.imwrite(str(path), img)
    h, w = img.shape[:2]
    print(
        f"saved {path}: layout {args.layout} seen whole in a {w}x{h} frame, cards "
        f"{info.card_px:.0f} px high, {info.faces} corners named"
    )
    _say_reads(info)
    return 0


def _say_reads(info: CaptureRead) -> None:
    """How far the model's own sure reads confirm the layout's order."""
    if info.agree == 0:
        print(
            f"{info.path}: no sure read of this deck to confirm the order: check that the "
            "cards lie as tablescan deck order --captures shows"
        )
    else:
        print(f"{info.path}: {info.agree} sure reads agree with the layout, {info.disagree} not")


def run_enroll(args: argparse.Namespace) -> int:
    import cv2

    from models.enroll import EnrollError, cut_layout, cut_scans, write_enrolled

    if not args.name.replace("_", "").replace("-", "").isalnum():
        log.error("--name %r: use letters, digits, - and _ only", args.name)
        return 2
    if args.captures is not None:
        return _enroll_captures(args)
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
    _report_cuts(cuts, args.name, pack)
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


def _report_cuts(cuts: list[Cut], name: str, pack: Path) -> None:
    bare = [c.card for c in cuts if c.card != "back" and not any(c.printed)]
    print(f"enrolled {len(cuts)} faces of {name}: {pack}")
    if bare:
        print(f"no corner index found on: {' '.join(bare)} (only their pictures can be read)")


def _enroll_captures(args: argparse.Namespace) -> int:
    """Captures → crop bank, upright faces (a pack) and, with ``--finetune-minutes``, a
    classifier tuned on both by the runtime-crop recipe."""
    import numpy as np

    from models.enroll import write_enrolled
    from models.enroll_capture import CaptureError, enroll_captures
    from vision.detect import DEFAULT_MODEL, CardDetector

    model = args.model or DEFAULT_MODEL
    try:
        x, y, cuts, reads, refused = enroll_captures(args.captures, CardDetector(model, threads=1))
    except CaptureError as e:
        log.error("%s", e)
        return 2
    for why in refused:
        print(f"refused: {why}")
    for r in reads:
        print(
            f"{r.path}: layout {r.layout}, cards {r.card_px:.0f} px high, "
            f"{r.faces} corners named, {r.negatives} false corners"
        )
        _say_reads(r)
    pack = write_enrolled(cuts, args.name, args.out)
    bank = args.out / "captures.npz"
    np.savez_compressed(bank, x=x, y=y)
    _report_cuts(cuts, args.name, pack)
    print(f"{len(y)} crops at the localiser's corners: {bank}")
    if args.finetune_minutes <= 0:
        return 0
    ckpt = args.out / "cls_enroll.pt"
    ckpt.unlink(missing_ok=True)  # an enrollment starts from the shipped classifier
    cmd = [
        sys.executable, "-m", "models.runtime_train",
        "--minutes", str(args.finetune_minutes), "--resume", str(ckpt),
        "--out", str(args.out / "cards.onnx"), "--pack", str(pack), "--pack-split", "enrolled",
        "--capture-bank", str(bank), "--holdout-scenes", "0", "--steps-per-scene", "4",
        "--ckpt", str(args.out / "cache"), "--workers", "1",
    ]  # fmt: skip
    if args.model is not None:  # the tuned classifier starts from the one that read them
        cmd += ["--model", str(args.model)]
    return subprocess.run(cmd, check=False).returncode
