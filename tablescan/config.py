"""The table's config file (``table.toml``): who sits where, what camera, how it is calibrated.

One file per physical table, written by ``render-match`` for rendered videos or by hand for a
real table. Every problem is a ``ConfigError`` naming the file and the key, because a table node
that starts with a half-read config would judge the wrong seats.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ARUCO_DICTS = ("DICT_4X4_50", "DICT_4X4_100", "DICT_5X5_50", "DICT_6X6_50", "DICT_ARUCO_ORIGINAL")
AREA_KINDS = ("seat", "centre")
Point = tuple[float, float]


class ConfigError(ValueError):
    """A table config that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class AreaConfig:
    """A polygon on the table plane: a seat's play area or the centre (bottom) area."""

    name: str
    kind: str
    polygon: tuple[Point, ...]
    seat: int | None = None


@dataclass(frozen=True)
class CalibrationConfig:
    """How image pixels map to the table plane.

    ``method = "aruco"``: four ArUco markers whose centres sit at the table corners
    (``marker_ids`` in the order top-left, top-right, bottom-right, bottom-left).
    ``method = "points"``: the four table corners clicked by hand, in image pixels, same order.
    """

    method: str
    table_size: tuple[float, float]
    dictionary: str = "DICT_4X4_50"
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    marker_size: float = 70.0
    points: tuple[Point, ...] = ()


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
    fps: float | None
    model: Path | None
    min_score: float | None  # None: the model's own calibrated ``sure_score``
    calibration: CalibrationConfig
    areas: tuple[AreaConfig, ...]
    masks: tuple[tuple[Point, ...], ...]
    still_frames: int = 2
    motion_threshold: float = 0.004
    evidence_dir: Path = field(default_factory=lambda: Path("evidence"))

    def match_start(self) -> dict[str, Any]:
        """The ``match_start`` record event this table opens with."""
        return {
            "type": "match_start",
            "game": self.game,
            "profile": self.profile,
            "seats": list(self.seats),
            "teams": [list(t) for t in self.teams],
            "levels": list(self.levels),
        }


class _Reader:
    """Typed access to a TOML table that names ``file: key`` in every error."""

    def __init__(self, path: Path, data: dict[str, Any], prefix: str = "") -> None:
        self.path, self.data, self.prefix = path, data, prefix

    def err(self, key: str, why: str) -> ConfigError:
        return ConfigError(f"{self.path}: {self.prefix}{key}: {why}")

    def sub(self, key: str, required: bool = True) -> _Reader:
        value = self.data.get(key)
        if value is None:
            if required:
                raise self.err(key, "missing table")
            value = {}
        if not isinstance(value, dict):
            raise self.err(key, "expected a table")
        return _Reader(self.path, value, f"{self.prefix}{key}.")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in self.data:
            if default is ...:
                raise self.err(key, "missing")
            return default
        value = self.data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, bool) and kind is not bool:
            raise self.err(key, f"expected {_kind_name(kind)}, got {value!r}")
        if not isinstance(value, kind):
            raise self.err(key, f"expected {_kind_name(kind)}, got {value!r}")
        return value

    def points(self, key: str, value: Any, min_len: int = 3) -> tuple[Point, ...]:
        if not isinstance(value, list) or len(value) < min_len:
            raise self.err(key, f"expected a list of at least {min_len} [x, y] points")
        out: list[Point] = []
        for i, p in enumerate(value):
            ok = isinstance(p, list) and len(p) == 2
            if not ok or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in p):
                raise self.err(f"{key}[{i}]", f"expected [x, y] numbers, got {p!r}")
            out.append((float(p[0]), float(p[1])))
        return tuple(out)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def load_config(path: str | Path) -> TableConfig:
    """Read and validate ``table.toml``; relative paths in it are relative to the file."""
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    return parse_config(raw, path)


def parse_config(raw: dict[str, Any], path: Path) -> TableConfig:
    root = _Reader(path, raw)
    table = root.sub("table")
    game = table.get("game", str)
    if game not in ("tractor", "gouji"):
        raise table.err("game", f"expected 'tractor' or 'gouji', got {game!r}")
    seats = table.get("seats", list)
    if len(seats) not in (4, 6) or not all(isinstance(s, str) and s for s in seats):
        raise table.err("seats", "expected 4 or 6 seat names (strings, in playing order)")
    n = len(seats)
    teams_raw = table.get("teams", list, [[i for i in range(n) if i % 2 == k] for k in range(2)])
    teams: list[tuple[int, ...]] = []
    for i, team in enumerate(teams_raw):
        if not isinstance(team, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) and 0 <= s < n for s in team
        ):
            raise table.err(f"teams[{i}]", f"expected a list of seat indexes 0..{n - 1}")
        teams.append(tuple(team))
    levels = table.get("levels", list, ["2"] * len(teams))
    if len(levels) != len(teams) or not all(isinstance(v, str) for v in levels):
        raise table.err("levels", "expected one level string per team")
    banker = table.get("banker", int, None)
    if banker is not None and not 0 <= banker < n:
        raise table.err("banker", f"seat index out of range 0..{n - 1}")
    decks = table.get("decks", int, 2 if game == "tractor" else 4)
    if decks < 1:
        raise table.err("decks", "must be at least 1")

    source = root.sub("source", required=False)
    model = root.sub("model", required=False)
    model_path = model.get("path", str, None)
    min_score = model.get("min_score", float, None)
    if min_score is not None and not 0.0 <= min_score <= 1.0:
        raise model.err("min_score", "must be between 0 and 1")

    motion = root.sub("motion", required=False)
    still_frames = motion.get("still_frames", int, 2)
    if still_frames < 1:
        raise motion.err("still_frames", "must be at least 1")
    evidence = root.sub("evidence", required=False)

    return TableConfig(
        path=path,
        table_id=table.get("id", str, path.stem),
        game=game,
        profile=table.get("profile", str),
        seats=tuple(seats),
        teams=tuple(teams),
        levels=tuple(levels),
        banker=banker,
        decks=decks,
        source=str(source.get("uri", (str, int), "0")),
        fps=source.get("fps", float, None),
        model=_rel(path, model_path) if model_path else None,
        min_score=min_score,
        calibration=_calibration(root.sub("calibration")),
        areas=_areas(root, n),
        masks=tuple(
            root.points(f"masks[{i}].polygon", m.get("polygon") if isinstance(m, dict) else None)
            for i, m in enumerate(root.get("masks", list, []))
        ),
        still_frames=still_frames,
        motion_threshold=motion.get("threshold", float, 0.004),
        evidence_dir=_rel(path, evidence.get("dir", str, "evidence")),
    )


def _rel(config_path: Path, value: str) -> Path:
    p = Path(value)
    return p if p.is_absolute() else config_path.parent / p


def _calibration(cal: _Reader) -> CalibrationConfig:
    method = cal.get("method", str)
    size = cal.points("table_size", [cal.get("table_size", list)], min_len=1)[0]
    if size[0] <= 0 or size[1] <= 0:
        raise cal.err("table_size", "must be positive")
    if method == "aruco":
        dictionary = cal.get("dictionary", str, "DICT_4X4_50")
        if dictionary not in ARUCO_DICTS:
            raise cal.err("dictionary", f"expected one of {', '.join(ARUCO_DICTS)}")
        ids = cal.get("marker_ids", list, [0, 1, 2, 3])
        if len(ids) != 4 or not all(isinstance(i, int) for i in ids) or len(set(ids)) != 4:
            raise cal.err("marker_ids", "expected 4 distinct marker ids (TL, TR, BR, BL)")
        points = cal.points("points", cal.data["points"], 4) if "points" in cal.data else ()
        return CalibrationConfig(
            method=method,
            table_size=size,
            dictionary=dictionary,
            marker_ids=(ids[0], ids[1], ids[2], ids[3]),
            marker_size=cal.get("marker_size", float, 70.0),
            points=points,
        )
    if method == "points":
        points = cal.points("points", cal.get("points", list), 4)
        if len(points) != 4:
            raise cal.err("points", "expected exactly 4 image points (TL, TR, BR, BL)")
        return CalibrationConfig(method=method, table_size=size, points=points)
    raise cal.err("method", f"expected 'aruco' or 'points', got {method!r}")


def _areas(root: _Reader, n_seats: int) -> tuple[AreaConfig, ...]:
    raw = root.get("areas", list)
    areas: list[AreaConfig] = []
    for i, a in enumerate(raw):
        if not isinstance(a, dict):
            raise root.err(f"areas[{i}]", "expected a table")
        r = _Reader(root.path, a, f"areas[{i}].")
        kind = r.get("kind", str)
        if kind not in AREA_KINDS:
            raise r.err("kind", f"expected one of {', '.join(AREA_KINDS)}")
        seat = r.get("seat", int, None)
        if kind == "seat" and (seat is None or not 0 <= seat < n_seats):
            raise r.err("seat", f"a seat area needs a seat index 0..{n_seats - 1}")
        areas.append(
            AreaConfig(
                name=r.get("name", str, f"{kind}{'' if seat is None else seat}"),
                kind=kind,
                polygon=r.points("polygon", r.get("polygon", list)),
                seat=seat,
            )
        )
    seats_covered = sorted(a.seat for a in areas if a.kind == "seat" and a.seat is not None)
    if seats_covered != list(range(n_seats)):
        raise root.err("areas", f"expected exactly one seat area per seat 0..{n_seats - 1}")
    if sum(a.kind == "centre" for a in areas) != 1:
        raise root.err("areas", "expected exactly one centre area")
    return tuple(areas)


def dump_config(cfg: dict[str, Any]) -> str:
    """Write a plain dict (tables, arrays of tables, lists, scalars) as TOML.

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


def _is_value(v: Any) -> bool:
    return not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")
