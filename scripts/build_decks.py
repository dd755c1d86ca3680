"""More deck designs to train on (issue 26, item 1): ``python scripts/build_decks.py``.

Two kinds of source, both written as ``files`` designs (``vision.synth.decks``: a folder of
one file per card and a ``deck.json`` with source, licence and attribution):

- ``--npm`` (what the training data build runs): packages of the npm registry, installed by
  ``npm pack`` into ``data/decks-src/`` and their SVG faces copied to ``data/decks/<name>/``
  (git-ignored: a script installs them, nothing of them is committed);
- ``--mirror NAME=GITDIR`` (run once, by whoever adds a design): the SVG faces of a public
  repository brought by the search tool's ``fetch``, rendered to 320-px PNGs into
  ``models/decks/<name>/`` (committed: compact derived faces, with the repository, commit
  and licence in ``deck.json`` and ``models/decks/MANIFEST.md``).

Every source below was opened and its licence read (none is AGPL or non-commercial); the
HOLDOUT.md designs are Debian's, never among these.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "C", "D")
HEIGHT = 320  # vision.synth.scene.SRC_HEIGHT


def _each() -> list[tuple[str, str]]:
    return [(r, s) for s in SUITS for r in RANKS]


def kennard(_: str) -> dict[str, str]:
    """Adrian Kennard's files: ``AS.svg``, ``TC.svg`` (T = 10); its one joker ``2J`` has no
    colour of its own (left out)."""
    return {r + s: ("T" if r == "10" else r) + s + ".svg" for r, s in _each()}


def aguilar_npm(_: str) -> dict[str, str]:
    """``1s.svg`` .. ``13s.svg`` (1 = ace, 11-13 = J, Q, K) and ``back.svg``; its one
    joker has no colour of its own (left out)."""
    num = {"A": "1", "J": "11", "Q": "12", "K": "13"}
    out = {r + s: f"{num.get(r, r)}{s.lower()}.svg" for r, s in _each()}
    return out | {"back": "back.svg"}


#: Looked at and left out: npm deck-of-cards 0.1.8 (Aguilar's faces, LGPL) draws no rank in
#: its corners (the web page adds it), so its corners would teach a suit alone as a face;
#: npm @letele/playing-cards is Kennard's 2-colour deck again; npm svg-cards (Bellot) is
#: the design gnome/bellot already gives.


def deck_of_cards(_: str) -> dict[str, str]:
    """``<suit>_<rank>.svg``: suit 0-3 = spades, hearts, clubs, diamonds (its lib/card.js),
    rank 1 = ace, 11-13 = J, Q, K; its jokers' colours are not named (left out)."""
    num = {"A": "1", "J": "11", "Q": "12", "K": "13"}
    return {r + s: f"{SUITS.index(s)}_{num.get(r, r)}.svg" for r, s in _each()}


def svgcards(_: str) -> dict[str, str]:
    """saulspatz/SVGCards: ``spadeAce.svg``, ``club10.svg``, ``redJoker.svg``, ``blueBack.svg``."""
    word = {"S": "spade", "H": "heart", "C": "club", "D": "diamond"}
    name = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}
    out = {r + s: f"{word[s]}{name.get(r, r)}.svg" for r, s in _each()}
    return out | {"BJ": "redJoker.svg", "SJ": "blackJoker.svg", "back": "blueBack.svg"}


def knoll(_: str) -> dict[str, str]:
    """notpeter/Vector-Playing-Cards: ``AS.svg``, ``10C.svg``; ``Joker2`` is the red one
    (mostly #df0000), ``Joker1`` the black one."""
    out = {r + s: f"{r}{s}.svg" for r, s in _each()}
    return out | {"BJ": "Joker2.svg", "SJ": "Joker1.svg"}


@dataclass(frozen=True)
class Npm:
    name: str  # design folder
    package: str  # name@version
    subdir: str  # inside the package
    licence: str
    attribution: str
    files: Callable[[str], dict[str, str]]
    paper: str = ""  # faces drawn without their card: rendered on this background


@dataclass(frozen=True)
class Mirror:
    name: str
    repo: str  # owner/name on GitHub
    subdir: str
    licence: str
    attribution: str
    files: Callable[[str], dict[str, str]]


_KENNARD = "Adrian Kennard (revk), SVG playing cards, CC0 art; npm package by heruka_urgyen (MIT)"
NPM: tuple[Npm, ...] = (
    Npm("kennard-2color", "@heruka_urgyen/react-playing-cards@0.5.0", "src/images/2color",
        "CC0-1.0 (art), MIT (package)", _KENNARD, kennard),
    Npm("kennard-2color-bigface", "@heruka_urgyen/react-playing-cards@0.5.0",
        "src/images/2color-bf", "CC0-1.0 (art), MIT (package)", _KENNARD, kennard),
    Npm("kennard-4color", "@heruka_urgyen/react-playing-cards@0.5.0", "src/images/4color",
        "CC0-1.0 (art), MIT (package)", _KENNARD, kennard),
    Npm("kennard-4color-bigface", "@heruka_urgyen/react-playing-cards@0.5.0",
        "src/images/4color-bf", "CC0-1.0 (art), MIT (package)", _KENNARD, kennard),
    Npm("aguilar-optimised", "@younestouati/playing-cards-standard-deck@3.0.0", "cards",
        "LGPL-3.0", "Chris Aguilar, Vector Playing Cards; optimised by Mike Hall; "
        "AS by Byron Knoll; npm package by Younes Touati", aguilar_npm),
)  # fmt: skip

_SPATZ = "Saul Spatz, SVGCards (public-domain jumbo-index decks)"
MIRRORS: tuple[Mirror, ...] = (
    *(
        Mirror(f"svgcards-{k.lower().replace('/', '-')}", "saulspatz/SVGCards",
               f"Decks/{k}/svgs", "Public domain (README)", _SPATZ, svgcards)
        for k in ("Vertical2", "Vertical4", "Horizontal2", "Horizontal4",
                  "Accessible/Vertical", "Accessible/Horizontal")
    ),
    Mirror("knoll", "notpeter/Vector-Playing-Cards", "cards-svg",
           "Public domain (WTFPL where PD is not recognised)",
           "Byron Knoll, vector-playing-cards; repackaged by notpeter", knoll),
)  # fmt: skip


def _write_meta(folder: Path, meta: dict[str, object]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "deck.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")


def install_npm(out: Path, src: Path) -> list[str]:
    """``npm pack`` each package (once) and copy its faces to ``out/<name>/``."""
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("error: npm not found (make decks installs it; or apt-get install npm)")
    src.mkdir(parents=True, exist_ok=True)
    done: list[str] = []
    unpacked: dict[str, Path] = {}
    for d in NPM:
        if d.package not in unpacked:
            r = subprocess.run(
                [npm, "pack", d.package, "--silent", "--pack-destination", str(src)],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            if r.returncode != 0:
                print(f"npm pack {d.package} failed: {r.stderr.strip()[:300]}", file=sys.stderr)
                continue
            tgz = src / r.stdout.strip().splitlines()[-1]
            dest = src / tgz.name.removesuffix(".tgz")
            if not dest.is_dir():
                with tarfile.open(tgz) as tar:
                    tar.extractall(dest, filter="data")
            unpacked[d.package] = dest / "package"
        base = unpacked[d.package] / d.subdir
        files = {c: f for c, f in d.files(d.name).items() if (base / f).is_file()}
        folder = out / d.name
        folder.mkdir(parents=True, exist_ok=True)
        for f in files.values():
            shutil.copy(base / f, folder / f)
        meta: dict[str, object] = {
            "name": d.name,
            "source": f"npm {d.package} ({d.subdir})",
            "licence": d.licence,
            "attribution": d.attribution,
            "files": files,
        }
        _write_meta(folder, meta | ({"paper": d.paper} if d.paper else {}))
        done.append(f"{d.name}: {len(files)} cards")
    return done


def render_mirror(d: Mirror, gitdir: Path, out: Path) -> str:
    """Render a fetched repository's SVG faces to ``HEIGHT``-px PNGs in ``out/<name>/``."""
    import cv2

    from vision.synth.decks import DeckInfo, _render_uncached, broken_reason

    commit = subprocess.run(
        ["git", "--git-dir", str(gitdir), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folder = out / d.name
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="tablescan-deck-") as tmp:
        t = Path(tmp)
        deck = DeckInfo(d.name, t, d.repo, "files", False)
        for card, f in d.files(d.name).items():
            blob = subprocess.run(
                ["git", "--git-dir", str(gitdir), "show", f"HEAD:{d.subdir}/{f}"],
                capture_output=True,
                check=False,
            )
            if blob.returncode != 0:
                print(f"{d.name}: {card} ({f}) missing", file=sys.stderr)
                continue
            (t / f).write_bytes(blob.stdout)
            img = _render_uncached(deck, f, HEIGHT)
            why = broken_reason(img, HEIGHT) if img is not None else "render failed"
            if why is not None or img is None:
                print(f"{d.name}: {card} refused ({why})", file=sys.stderr)
                continue
            name = f"{card}.png"
            cv2.imwrite(str(folder / name), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
            files[card] = name
    _write_meta(
        folder,
        {
            "name": d.name,
            "source": f"github {d.repo}@{commit} ({d.subdir}), rendered by rsvg-convert "
            f"to {HEIGHT} px",
            "licence": d.licence,
            "attribution": d.attribution,
            "files": files,
        },
    )
    return f"{d.name}: {len(files)} cards"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/build_decks.py", description=__doc__)
    ap.add_argument("--npm", action="store_true", help="install the npm designs")
    ap.add_argument("--npm-out", type=Path, default=REPO / "data" / "decks")
    ap.add_argument("--npm-src", type=Path, default=REPO / "data" / "decks-src")
    ap.add_argument(
        "--mirror",
        action="append",
        default=[],
        metavar="REPO=GITDIR",
        help="render a fetched repository's designs (owner/name=its git dir)",
    )
    ap.add_argument("--mirror-out", type=Path, default=REPO / "models" / "decks")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    if args.npm:
        for line in install_npm(args.npm_out, args.npm_src):
            print(line)
    for spec in args.mirror:
        repo, _, gitdir = spec.partition("=")
        todo = [d for d in MIRRORS if d.repo == repo]
        if not todo:
            raise SystemExit(
                f"error: {repo}: not a known source ({', '.join(m.repo for m in MIRRORS)})"
            )
        for d in todo:
            print(render_mirror(d, Path(gitdir), args.mirror_out), flush=True)
    if not args.npm and not args.mirror:
        ap.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
