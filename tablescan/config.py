"""The table's config file (``table.toml``): who sits where, what camera, how it is calibrated.

Over 600 lines on purpose: the whole table.toml contract is one schema with its descriptions,
bounds and error wording, the single source the reference doc is generated from.

One file per physical table, written by ``tablescan setup`` for a real table or by
``render-match`` for rendered videos. The file's contract is one typed schema (``TableFile``,
pydantic v2, unknown keys refused) from which ``docs/table-config.md`` is generated, so the
reference and the checks cannot drift apart. Every problem is a ``ConfigError`` whose lines read
``file:line: key: why``: a table node that starts with a half-read config would judge the wrong
seats, and a misspelt key that passes silently (``idd = …``) is a half-read config.

``load_config`` returns the resolved ``TableConfig`` the node uses (paths made relative to the
file, defaults filled in); ``TableFile`` is the file as written.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.games import GAMES, find_game
from hall.config import HallConfig, HallConfigError, parse_broker

if TYPE_CHECKING:
    from engine.record import Event
    from vision.calibration import Layout

ARUCO_DICTS = ("DICT_4X4_50", "DICT_4X4_100", "DICT_5X5_50", "DICT_6X6_50", "DICT_ARUCO_ORIGINAL")
AREA_KINDS = ("seat", "centre")
TABLE_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
Point = tuple[float, float]

# Defaults of the tuning knobs that lived in code (tablescan/node.py) before they were config.
SURE_SCORE = 0.85
RECHECK_FRAMES = 2
WEAK_READ = 0.2
CAMERA_SIZE = (2304, 1296)  # Raspberry Pi Camera Module 3: full field of view, 2×2 binned


class ConfigError(ValueError):
    """A table config that cannot be used; each line reads ``file:line: key: why``."""


# --- the file's schema ------------------------------------------------------------------------


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


XY = Annotated[
    tuple[float, float], Field(description="a point `[x, y]`", json_schema_extra={"kind": "[x, y]"})
]


class TableSection(_Section):
    """Who plays at this table, and by which rules."""

    id: str | None = Field(
        default=None,
        pattern=TABLE_ID,
        description="The table's id in the record, the evidence store and the dashboard. "
        "Letters, digits, `_`, `-`, `.`; up to 64; no leading dot. Default: the file's name "
        "without `.toml`.",
    )
    game: str = Field(
        min_length=1,
        description="The game, by its name in the game registry (`engine.games`): `tractor` "
        "(80-points / 升级) or `gouji` (够级).",
    )
    profile: str = Field(
        min_length=1,
        description="The rule profile id (`tablescan profiles` lists them); it must belong "
        "to `game`. An 80-points profile may also be a path to a rule-sheet TOML.",
    )
    seats: list[Annotated[str, Field(min_length=1)]] = Field(
        description="Seat names in playing order; seat 0 sits at the bottom edge of the table "
        "plane (markers 3→2). 4 seats (80-points) or 6 (Gouji).",
    )
    teams: list[list[Annotated[int, Field(ge=0, le=5)]]] | None = Field(
        default=None,
        description="Seat indexes of each team. Default: alternate seats "
        "(`[[0, 2], [1, 3]]`, `[[0, 2, 4], [1, 3, 5]]`).",
    )
    levels: list[str] | None = Field(
        default=None,
        description='Each team\'s level at the start of the hand. Default: `"2"` each.',
    )
    banker: int | None = Field(
        default=None,
        ge=0,
        le=5,
        description="Seat index of the banker (庄家), when known at start.",
    )
    decks: int | None = Field(
        default=None,
        ge=1,
        le=8,
        description="Decks in play. Default: 2 for 80-points; for Gouji the rules' "
        "`deal.decks` (4 on every sheet), which it must equal.",
    )
    options: dict[str, bool | int | float | str] | None = Field(
        default=None,
        description="A house's variation of its sheet, as the record's `options` "
        '(`{"section.key" = value}`; Gouji with three decks: `{"deal.decks" = 3}`). Checked '
        "against the profile when the file is read; written in the record's `match_start`.",
    )
    clock_minutes: int | None = Field(
        default=None,
        ge=0,
        le=1440,
        description="This stage's match limit in minutes, over the profile's `[match] minutes` "
        "(semi-finals and the final of `chaodipi-anchao`: 90; `four-deck` from the last "
        "eight: 0, no limit). At time the profile's at-time rule decides; a profile that "
        "states none leaves it to a referee. Written in `match_start.clock`.",
    )


class SourceSection(_Section):
    """Where frames come from."""

    uri: str | int = Field(
        default="0",
        description="`0` (first camera), `/dev/video0`, `picamera2` (Raspberry Pi camera), an "
        "`rtsp://`/`http://` stream, a video file or a folder of images (relative to this file).",
    )
    fps: float | None = Field(
        default=None,
        gt=0,
        le=240,
        description="Frames per second. Default: what the source reports (25 if it reports "
        "nothing; 10 for an image folder).",
    )
    lost_after_s: float = Field(
        default=1.0,
        gt=0,
        le=30,
        description="A live source that gives no frame for this long is 'camera lost' (it "
        "keeps retrying).",
    )
    retry_max_s: float = Field(
        default=0.5,
        gt=0,
        le=30,
        description="Longest wait between two reconnect tries of a lost live source (the wait "
        "doubles from 0.05 s up to this).",
    )


class CameraSection(_Section):
    """The capture mode asked of a live camera."""

    width: int = Field(
        default=CAMERA_SIZE[0],
        ge=160,
        le=8192,
        description="Capture width in pixels. The default is the Pi Camera Module 3's "
        "full-field binned mode (2304×1296); a USB camera picks its nearest mode.",
    )
    height: int = Field(
        default=CAMERA_SIZE[1], ge=120, le=8192, description="Capture height in pixels."
    )


class ModelSection(_Section):
    """The card recognizer."""

    path: str | None = Field(
        default=None,
        description="The recognizer ONNX (relative to this file). `tablescan run --model` "
        "overrides it.",
    )
    min_score: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Reads under this score go to a referee. Default: the score the model was "
        "calibrated to be sure at (its `sure_score`).",
    )


class ReadingSection(_Section):
    """How a read becomes an event: the node's tuning knobs."""

    sure_score: float = Field(
        default=SURE_SCORE,
        ge=0,
        le=1,
        description="A read that changed is written without a referee when two frames agree "
        "and one reaches this score.",
    )
    recheck_frames: int = Field(
        default=RECHECK_FRAMES,
        ge=0,
        le=50,
        description="Frames read again when a seat's read disagrees with itself, before it "
        "goes to a referee.",
    )
    weak_read: float = Field(
        default=WEAK_READ,
        ge=0,
        le=1,
        description="An area that settled but read too few cards is read once more down to "
        "this score; what that adds is doubted (a referee confirms it).",
    )
    every_frame: bool = Field(
        default=False,
        description="Read a seat's cards in every frame while they land, not only when the "
        "area settles, and judge the settled read with those frames' votes (a pair's lower "
        "card keeps the read it had before the upper one covered it). Costs a recognizer "
        "call per frame of play (three frames in four): off until it is measured to help.",
    )


class MotionSection(_Section):
    """When the table counts as still enough to read."""

    still_frames: int = Field(
        default=2, ge=1, le=100, description="Frames an area must stay still before it is read."
    )
    threshold: float = Field(
        default=0.004,
        gt=0,
        le=1,
        description="Share of an area's pixels that must change to count as motion.",
    )


class CalibrationSection(_Section):
    """How image pixels map to the table plane."""

    method: Literal["aruco", "points"] = Field(
        description="`aruco`: four printed markers (`tablescan markers`) whose centres sit at "
        "the table corners. `points`: the four corners clicked by hand, in image pixels."
    )
    table_size: tuple[Annotated[float, Field(gt=0)], Annotated[float, Field(gt=0)]] = Field(
        description="Width and depth of the table plane between the marker centres, in table "
        "units (millimetres for a real table)."
    )
    dictionary: Literal[ARUCO_DICTS] = Field(  # type: ignore[valid-type]
        "DICT_4X4_50", description="The ArUco dictionary of the markers."
    )
    marker_ids: tuple[int, int, int, int] = Field(
        default=(0, 1, 2, 3),
        description="Marker ids at the top-left, top-right, bottom-right and bottom-left "
        "corners (distinct).",
    )
    marker_size: float = Field(
        default=70.0,
        gt=0,
        le=1000,
        description="Printed side of a marker's black square, table units.",
    )
    card_height: float = Field(
        default=89.0,
        gt=0,
        le=1000,
        description="A card's height in table units (a poker-size card is 89 mm): with the "
        "markers' true size it tells `tablescan doctor` how many pixels a card gets.",
    )
    points: list[XY] | None = Field(
        default=None,
        description="The four table corners in image pixels (TL, TR, BR, BL). Required for "
        "`points`; with `aruco`, the fallback when the markers are hidden.",
    )


class AreaSection(_Section):
    """One polygon of the table plane: a seat's play area or the centre."""

    kind: Literal["seat", "centre"] = Field(description="`seat` or `centre` (the bottom cards).")
    seat: int | None = Field(
        default=None, ge=0, le=5, description="The seat index, for a seat area."
    )
    name: str | None = Field(default=None, description="Its name. Default: `seat<N>` or `centre`.")
    polygon: list[XY] = Field(min_length=3, description="Corners on the table plane.")


class MaskSection(_Section):
    """A region never read or stored: a player's held hand at the table edge."""

    polygon: list[XY] = Field(min_length=3, description="Corners on the table plane.")


class EvidenceSection(_Section):
    """Where evidence images go without a `--data` store."""

    dir: str = Field(
        default="evidence", description="Folder for evidence JPEGs (relative to this file)."
    )


class HallSection(_Section):
    """The hall broker this table publishes its stored record to (optional; with `run --data`)."""

    broker: str = Field(
        description="The hall's Mosquitto broker: `mqtt://host[:1883]` or `mqtts://host[:8883]` "
        "(TLS)."
    )
    name: str = Field(
        default="hall",
        pattern=r"^[A-Za-z0-9_.-]{1,64}$",
        description="The hall's name, the second part of every topic "
        "(`tablescan/<name>/<table>/…`).",
    )
    username: str | None = Field(
        default=None,
        min_length=1,
        description="The broker user. Default: the table id (the shipped ACL keys a table's "
        "topics on it).",
    )
    password_file: str | None = Field(
        default=None,
        description="A file whose first line is the broker password (relative to this file); "
        "keeps the password out of the config.",
    )
    ca_file: str | None = Field(
        default=None,
        description="The hall CA certificate for `mqtts://` (relative to this file). Default: "
        "the system's trusted CAs.",
    )
    cert_file: str | None = Field(
        default=None, description="A client certificate for `mqtts://` (with `key_file`)."
    )
    key_file: str | None = Field(
        default=None, description="The client certificate's key (with `cert_file`)."
    )


class TableFile(_Section):
    """The whole ``table.toml``."""

    table: TableSection
    source: SourceSection = Field(default_factory=SourceSection)
    camera: CameraSection = Field(default_factory=CameraSection)
    model: ModelSection = Field(default_factory=ModelSection)
    reading: ReadingSection = Field(default_factory=ReadingSection)
    motion: MotionSection = Field(default_factory=MotionSection)
    calibration: CalibrationSection
    evidence: EvidenceSection = Field(default_factory=EvidenceSection)
    hall: HallSection | None = Field(
        default=None, description="`[hall]`: the broker this table publishes to (optional)."
    )
    areas: list[AreaSection] = Field(
        description="One `[[areas]]` per seat and one centre area, on the table plane."
    )
    masks: list[MaskSection] = Field(
        default=[], description="`[[masks]]`: held-hand regions, blanked before any read."
    )


SECTIONS: tuple[tuple[str, type[BaseModel], bool], ...] = (
    ("table", TableSection, False),
    ("source", SourceSection, False),
    ("camera", CameraSection, False),
    ("model", ModelSection, False),
    ("reading", ReadingSection, False),
    ("motion", MotionSection, False),
    ("calibration", CalibrationSection, False),
    ("evidence", EvidenceSection, False),
    ("hall", HallSection, False),
    ("areas", AreaSection, True),
    ("masks", MaskSection, True),
)  # (TOML name, schema, is an array of tables): the doc and `setup` walk this


# --- the resolved config the node uses --------------------------------------------------------


@dataclass(frozen=True)
class AreaConfig:
    """A polygon on the table plane: a seat's play area or the centre (bottom) area."""

    name: str
    kind: str
    polygon: tuple[Point, ...]
    seat: int | None = None


@dataclass(frozen=True)
class CalibrationConfig:
    """How image pixels map to the table plane (see ``CalibrationSection``)."""

    method: str
    table_size: tuple[float, float]
    dictionary: str = "DICT_4X4_50"
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    marker_size: float = 70.0
    points: tuple[Point, ...] = ()
    card_height: float = 89.0


@dataclass(frozen=True)
class TableConfig:
    path: Path
    table_id: str
    game: str
    profile: str
    seats: tuple[str, ...]
    teams: tuple[tuple[int, ...], ...]
    levels: tuple[str, ...]
    banker: int | None
    decks: int
    source: str
    options: dict[str, Any] | None
    fps: float | None
    model: Path | None
    min_score: float | None  # None: the model's own calibrated ``sure_score``
    calibration: CalibrationConfig
    areas: tuple[AreaConfig, ...]
    masks: tuple[tuple[Point, ...], ...]
    still_frames: int = 2
    motion_threshold: float = 0.004
    evidence_dir: Path = field(default_factory=lambda: Path("evidence"))
    sure_score: float = SURE_SCORE
    recheck_frames: int = RECHECK_FRAMES
    weak_read: float = WEAK_READ
    every_frame: bool = False
    camera_size: tuple[int, int] = CAMERA_SIZE
    lost_after_s: float = 1.0
    retry_max_s: float = 0.5
    hall: HallConfig | None = None  # ``[hall]``: publish the stored record to this broker
    clock: dict[str, Any] | None = None  # ``match_start.clock``: the limit in force, if any

    def match_start(self) -> Event:
        """The ``match_start`` record event this table opens with."""
        return {
            "type": "match_start",
            "game": self.game,
            "profile": self.profile,
            "seats": list(self.seats),
            "teams": [list(t) for t in self.teams],
            "levels": list(self.levels),
            **({"options": dict(self.options)} if self.options else {}),
            **({"clock": dict(self.clock)} if self.clock else {}),
        }


# --- reading ----------------------------------------------------------------------------------


def load_config(path: str | Path) -> TableConfig:
    """Read and validate ``table.toml``; relative paths in it are relative to the file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a table.toml") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot be read: {e.strerror or e}") from None
    if b"\x00" in data:
        raise ConfigError(f"{path}: a binary file, not a table.toml (TOML text)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 text (byte {e.start})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+)", str(e))
        where = f"{path}:{m.group(1)}" if m else str(path)
        why = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        raise ConfigError(f"{where}: not valid TOML: {why}") from None
    return parse_config(raw, path, text)


def parse_config(raw: dict[str, Any], path: Path, text: str | None = None) -> TableConfig:
    """Validate the parsed TOML ``raw`` of ``path`` (``text``, when given, locates the lines)."""
    lines = KeyLines(text or "")
    try:
        # JSON mode, strict: TOML's own types count (no "3" for 3, no true for 1), and arrays
        # stand for tuples
        f = TableFile.model_validate_json(json.dumps(raw, default=str), strict=True)
    except ValidationError as e:
        raise ConfigError(_report(path, lines, _explain(e, raw))) from None
    problems = _check(f, path)
    if problems:
        raise ConfigError(_report(path, lines, problems))
    return _resolve(f, path)


def _stem(path: Path) -> str:
    return path.stem


def _default_teams(n: int) -> list[list[int]]:
    return [[i for i in range(n) if i % 2 == k] for k in range(2)]


def _check(f: TableFile, path: Path) -> list[tuple[tuple[Any, ...], str]]:
    """What the schema alone cannot say: counts against the seats, the profile, the ids."""
    out: list[tuple[tuple[Any, ...], str]] = []
    t = f.table
    n = len(t.seats)
    if t.game not in GAMES:
        out.append((("table", "game"), f"unknown game {t.game!r} (known: {', '.join(GAMES)})"))
        return out
    sizes = sorted({g.seats for g in GAMES.values()})
    if n not in sizes:
        known = " or ".join(str(k) for k in sizes)
        out.append((("table", "seats"), f"expected {known} seat names (in playing order), got {n}"))
        return out
    want = find_game(t.game).seats  # 80-points: four players; Gouji: six
    if n != want:  # the other problems are still worth reporting
        out.append((("table", "seats"), f"a {t.game} table has {want} seats, got {n}"))
    if t.id is None and not re.fullmatch(TABLE_ID, _stem(path)):
        out.append(
            (("table", "id"), f"the file name {_stem(path)!r} is not a usable id; set table.id")
        )
    teams = t.teams if t.teams is not None else _default_teams(n)
    for i, team in enumerate(teams):
        if not team or any(s >= n for s in team):
            out.append((("table", "teams", i), f"expected seat indexes 0..{n - 1}"))
    seen = [s for team in teams for s in team]
    if len(seen) != len(set(seen)):
        out.append((("table", "teams"), "a seat is in two teams"))
    if t.levels is not None and len(t.levels) != len(teams):
        out.append((("table", "levels"), f"expected one level per team ({len(teams)})"))
    if t.banker is not None and t.banker >= n:
        out.append((("table", "banker"), f"seat index out of range 0..{n - 1}"))
    out += _check_profile(t)
    cal = f.calibration
    if len(set(cal.marker_ids)) != 4:
        out.append(
            (("calibration", "marker_ids"), "expected 4 distinct marker ids (TL, TR, BR, BL)")
        )
    if cal.method == "points" and cal.points is None:
        out.append((("calibration", "points"), "missing (needed by method = 'points')"))
    if cal.points is not None and len(cal.points) != 4:
        out.append((("calibration", "points"), "expected exactly 4 image points (TL, TR, BR, BL)"))
    for i, a in enumerate(f.areas):
        if a.kind == "seat" and (a.seat is None or a.seat >= n):
            out.append((("areas", i, "seat"), f"a seat area needs a seat index 0..{n - 1}"))
        if a.kind == "centre" and a.seat is not None:
            out.append((("areas", i, "seat"), "the centre area belongs to no seat"))
    covered = sorted(a.seat for a in f.areas if a.kind == "seat" and a.seat is not None)
    if covered != list(range(n)) and not any(loc[0] == "areas" for loc, _ in out):
        out.append((("areas",), f"expected exactly one seat area per seat 0..{n - 1}"))
    if sum(a.kind == "centre" for a in f.areas) != 1:
        out.append((("areas",), "expected exactly one centre area"))
    out += _check_hall(f.hall, path)
    return out


HALL_FILES = ("password_file", "ca_file", "cert_file", "key_file")


def _check_hall(h: HallSection | None, path: Path) -> list[tuple[tuple[Any, ...], str]]:
    if h is None:
        return []
    out: list[tuple[tuple[Any, ...], str]] = []
    try:
        parse_broker(h.broker)
    except HallConfigError as e:
        out.append((("hall", "broker"), str(e).removeprefix("broker ")))
    for name in HALL_FILES:
        value = getattr(h, name)
        if value is not None and not _rel(path, value).is_file():
            out.append((("hall", name), f"{_rel(path, value)}: no such file"))
    if (h.cert_file is None) != (h.key_file is None):
        out.append((("hall", "cert_file"), "give both cert_file and key_file, or neither"))
    return out


def _hall(h: HallSection | None, path: Path) -> HallConfig | None:
    if h is None:
        return None

    def file(name: str) -> Path | None:
        value = getattr(h, name)
        return None if value is None else _rel(path, value)

    try:
        return HallConfig(
            broker=h.broker,
            hall=h.name,
            username=h.username,
            password_file=file("password_file"),
            ca_file=file("ca_file"),
            cert_file=file("cert_file"),
            key_file=file("key_file"),
        )
    except HallConfigError as e:  # a file removed since the check
        raise ConfigError(f"{path}: hall: {e}") from None


def _check_profile(t: TableSection) -> list[tuple[tuple[Any, ...], str]]:
    from engine.games import game_of_profile
    from engine.record import RecordError

    try:
        game = game_of_profile(t.profile)
    except RecordError as e:
        return [(("table", "profile"), e.problem)]
    if game.name != t.game:
        return [
            (
                ("table", "profile"),
                f"{t.profile!r} is a {game.name} profile, but table.game is {t.game!r}",
            )
        ]
    try:
        rules = game.load_rules(t.profile, t.options)
    except Exception as e:  # the profile's own error names the key
        return [(("table", "options"), str(e))]
    deal = getattr(rules, "deal", None)
    ruled = getattr(deal, "decks", None)
    if t.decks is not None and isinstance(ruled, int) and t.decks != ruled:
        why = f"{t.decks}, but the rules deal {ruled} (set options deal.decks = {t.decks})"
        return [(("table", "decks"), why)]
    return []


def _rule_decks(t: TableSection) -> int | None:
    """The rules' deck count (Gouji's ``deal.decks``, options applied), if the game has one."""
    from engine.games import find_game

    rules = find_game(t.game).load_rules(t.profile, t.options)
    ruled = getattr(getattr(rules, "deal", None), "decks", None)
    return ruled if isinstance(ruled, int) else None


def _clock(t: TableSection) -> dict[str, Any] | None:
    """The limit in force: the table's ``clock_minutes`` (a stage's own), else the sheet's."""
    if t.clock_minutes is not None:
        return {"minutes": t.clock_minutes, "from": "table"} if t.clock_minutes else None
    from engine.games import find_game

    rule = getattr(find_game(t.game).load_rules(t.profile, t.options), "clock", None)
    minutes = getattr(rule, "minutes", 0)
    return {"minutes": minutes, "from": "profile"} if minutes else None


def _rel(config_path: Path, value: str) -> Path:
    p = Path(value)
    return p if p.is_absolute() else config_path.parent / p


def _resolve(f: TableFile, path: Path) -> TableConfig:
    t, cal = f.table, f.calibration
    n = len(t.seats)
    teams = t.teams if t.teams is not None else _default_teams(n)
    return TableConfig(
        path=path,
        table_id=t.id or _stem(path),
        game=t.game,
        profile=t.profile,
        seats=tuple(t.seats),
        teams=tuple(tuple(team) for team in teams),
        levels=tuple(t.levels if t.levels is not None else ["2"] * len(teams)),
        banker=t.banker,
        decks=t.decks or _rule_decks(t) or 2,
        source=str(f.source.uri),
        options=dict(t.options) if t.options else None,
        clock=_clock(t),
        fps=f.source.fps,
        model=_rel(path, f.model.path) if f.model.path else None,
        min_score=f.model.min_score,
        calibration=CalibrationConfig(
            method=cal.method,
            table_size=cal.table_size,
            dictionary=cal.dictionary,
            marker_ids=cal.marker_ids,
            marker_size=cal.marker_size,
            points=tuple(cal.points or ()),
            card_height=cal.card_height,
        ),
        areas=tuple(
            AreaConfig(
                a.name or f"{a.kind}{'' if a.seat is None else a.seat}",
                a.kind,
                tuple(a.polygon),
                a.seat,
            )
            for a in f.areas
        ),
        masks=tuple(tuple(m.polygon) for m in f.masks),
        still_frames=f.motion.still_frames,
        motion_threshold=f.motion.threshold,
        evidence_dir=_rel(path, f.evidence.dir),
        sure_score=f.reading.sure_score,
        recheck_frames=f.reading.recheck_frames,
        weak_read=f.reading.weak_read,
        every_frame=f.reading.every_frame,
        camera_size=(f.camera.width, f.camera.height),
        lost_after_s=f.source.lost_after_s,
        retry_max_s=f.source.retry_max_s,
        hall=_hall(f.hall, path),
    )


# --- errors: which key, which line, why -------------------------------------------------------


def dotted(loc: tuple[Any, ...]) -> str:
    """``("areas", 1, "polygon")`` → ``areas[1].polygon``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _fields_at(loc: tuple[Any, ...]) -> list[str]:
    """The keys the schema allows in the table at ``loc`` (for a did-you-mean)."""
    model: Any = TableFile
    for part in loc:
        if isinstance(part, int):
            continue
        info = model.model_fields.get(part)
        if info is None:
            return []
        ann = info.annotation
        inner = getattr(ann, "__args__", (ann,))
        model = next((a for a in inner if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if model is None:
            return []
    return list(model.model_fields)


def _explain(e: ValidationError, raw: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    out: list[tuple[tuple[Any, ...], str]] = []
    for err in e.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
        kind, ctx, value = err["type"], err.get("ctx", {}), err.get("input")
        if kind == "extra_forbidden":
            known = _fields_at(loc[:-1])
            close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(known)})"
            why = f"unknown key{hint}"
        elif kind == "missing":
            is_table = bool(_fields_at(loc)) and loc[-1] != "areas"
            why = "missing table" if is_table else "missing"
        elif kind == "literal_error":
            why = f"expected {ctx.get('expected', '')}, got {value!r}"
        elif kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
            words = {
                "greater_than": ("greater than", "gt"),
                "greater_than_equal": ("at least", "ge"),
                "less_than": ("less than", "lt"),
                "less_than_equal": ("at most", "le"),
            }[kind]
            bound = _num(ctx.get(words[1]))
            why = f"must be {words[0]} {bound}, got {value!r}"
            if {"ge", "le"} <= _bounds(loc).keys():
                lo, hi = _num(_bounds(loc)["ge"]), _num(_bounds(loc)["le"])
                why = f"must be between {lo} and {hi}, got {value!r}"
        elif kind == "string_pattern_mismatch" and loc == ("table", "id"):
            why = (
                f"{value!r} is not a table id (letters, digits, _ - . ; up to 64; "
                "no leading dot, no slash)"
            )
        elif kind in ("too_short", "too_long"):
            why = f"{err['msg'].lower()}"
        elif kind == "model_type" or kind == "dict_type":
            why = f"expected a table, got {value!r}"
        else:
            why = f"{err['msg'][:1].lower()}{err['msg'][1:]}, got {value!r}"
        out.append((loc, why))
    return out


def _num(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _bounds(loc: tuple[Any, ...]) -> dict[str, Any]:
    """The ``ge``/``le`` bounds of the field at ``loc`` (to say 'between a and b')."""
    names = [p for p in loc if isinstance(p, str)]
    if len(names) != 2:
        return {}
    model = {s: m for s, m, _ in SECTIONS}.get(names[0])
    info = model.model_fields.get(names[1]) if model else None
    out: dict[str, Any] = {}
    for m in info.metadata if info else ():
        for k in ("ge", "le"):
            if getattr(m, k, None) is not None:
                out[k] = getattr(m, k)
    return out


class KeyLines:
    """Line numbers of keys in TOML text: ``table.id``, ``areas[1].polygon`` → line.

    Covers what table files hold: ``[table]``, ``[[array]]`` headers, ``key = …`` (also dotted
    and quoted keys). Keys inside inline tables resolve to their enclosing key's line.
    """

    _header = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")
    _key = re.compile(
        r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
    )

    def __init__(self, text: str) -> None:
        self.lines: dict[str, int] = {}
        counts: dict[str, int] = {}
        prefix = ""
        depth = 0  # open brackets of a multi-line value
        for no, line in enumerate(text.splitlines(), 1):
            if depth > 0:
                depth += _bracket_balance(line)
                continue
            h = self._header.match(line)
            if h:
                name = ".".join(_unquote(p) for p in h.group(2).split("."))
                if h.group(1) == "[[":
                    i = counts.get(name, 0)
                    counts[name] = i + 1
                    prefix = f"{name}[{i}]"
                else:
                    prefix = name
                self.lines.setdefault(prefix, no)
                self.lines.setdefault(prefix.split("[")[0], no)
                continue
            k = self._key.match(line)
            if k:
                key = ".".join(_unquote(p) for p in k.group(1).split("."))
                self.lines.setdefault(f"{prefix}.{key}" if prefix else key, no)
                depth = _bracket_balance(line[k.end() :])

    def line_of(self, key: str) -> int | None:
        """The line of ``key``, else of the nearest enclosing key or table that is written."""
        while key:
            if key in self.lines:
                return self.lines[key]
            cut = max(key.rfind("."), key.rfind("["))
            key = key[:cut] if cut > 0 else ""
        return None


def _unquote(part: str) -> str:
    part = part.strip()
    return part[1:-1] if len(part) >= 2 and part[0] == part[-1] and part[0] in "\"'" else part


def _bracket_balance(s: str) -> int:
    s = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", s.split("#")[0])
    return s.count("[") + s.count("{") - s.count("]") - s.count("}")


def _report(path: Path, lines: KeyLines, problems: list[tuple[tuple[Any, ...], str]]) -> str:
    """One ``file:line: key: why`` line per problem, in file order."""
    rows = [
        (lines.line_of(dotted(loc)) or 1 << 30, i, loc, why)
        for i, (loc, why) in enumerate(problems)
    ]
    return "\n".join(f"{_where(path, lines, loc)}: {why}" for _, _, loc, why in sorted(rows))


def _where(path: Path, lines: KeyLines, loc: tuple[Any, ...]) -> str:
    key = dotted(loc)
    line = lines.line_of(key)
    return f"{path}:{line}: {key}" if line else f"{path}: {key}"


# --- writing ----------------------------------------------------------------------------------


def dump_config(cfg: dict[str, Any]) -> str:
    """Write a plain dict (tables, arrays of tables, lists, inline tables, scalars) as TOML.

    tomllib only reads; this small writer covers what ``table.toml`` holds.
    """
    lines: list[str] = []
    scalars = {k: v for k, v in cfg.items() if not isinstance(v, dict) and _is_value(v)}
    for k, v in scalars.items():
        lines.append(f"{k} = {_toml_value(v)}")
    for k, v in cfg.items():
        if isinstance(v, dict):
            lines += ["", f"[{k}]"] + [f"{kk} = {_toml_value(vv)}" for kk, vv in v.items()]
        elif isinstance(v, list) and not _is_value(v):
            for item in v:
                lines += ["", f"[[{k}]]"] + [f"{kk} = {_toml_value(vv)}" for kk, vv in item.items()]
    return "\n".join(lines).lstrip("\n") + "\n"


def layout_tables(layout: Layout) -> dict[str, list[dict[str, Any]]]:
    """A layout's ``[[areas]]`` and ``[[masks]]`` as ``dump_config`` writes them (a rendered
    table's config, ``tablescan setup``'s default six- or four-seat areas)."""
    return {
        "areas": [
            {
                "name": a.name,
                "kind": a.kind,
                **({"seat": a.seat} if a.seat is not None else {}),
                "polygon": [list(p) for p in a.polygon],
            }
            for a in layout.areas
        ],
        "masks": [{"polygon": [list(p) for p in m]} for m in layout.masks],
    }


def _is_value(v: Any) -> bool:
    return not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))


def toml_value(v: Any) -> str:
    """One TOML value (scalars and lists) as text."""
    return _toml_value(v)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):  # an inline table, keys quoted (``options``: "deal.decks" = 3)
        return (
            "{ "
            + ", ".join(f"{_toml_value(str(k))} = {_toml_value(x)}" for k, x in v.items())
            + " }"
        )
    raise TypeError(f"cannot write {type(v).__name__} as TOML")
