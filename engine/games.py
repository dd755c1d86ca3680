"""The one game registry: a game name → its rules loader, referee class and profile ids.

In the style of python-chess's ``find_variant``: every caller that needs a game's rules or a
referee (the table node, the dashboard, ``tablescan judge``, ``tablescan profiles``) asks here,
so a new game is one ``Game`` entry and the callers need no edit. Imports of a game's modules
are lazy: a game whose engine fails to import fails only when used, with a clear error.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from engine.record import Event, RecordError, Ruling


class RefereeLike(Protocol):
    """The shared referee interface (CONTRIBUTING.md): every game's referee has this shape."""

    def feed(self, event: Event) -> list[Ruling]: ...

    def state(self) -> dict[str, Any]: ...

    def report(self) -> dict[str, Any]: ...

    def next_hand(self) -> dict[str, Any] | None:
        """The next deal's ``hand_start`` fields (``hand``, ``banker``, ``level``), or None
        once the match is over: each game decides its own match flow."""
        ...

    def match_result(self) -> dict[str, Any]:
        """``match_end``'s ``result``: ``hands`` played, the game's figures, ``winner``."""
        ...


@dataclass(frozen=True)
class Game:
    """One game: its record name, the people's name, and where its engine lives."""

    name: str  #: the record's ``game`` (``tractor``, ``gouji``)
    title: str  #: how people call it
    rules_module: str
    rules_class: str
    referee_module: str
    referee_class: str
    view: str  #: the views' key for this game's panels (dashboard partials, JS draw functions)
    #: who sees a deal end: ``camera`` (the table node's fusion counts the cards out) or
    #: ``referee`` (the referee's state says every place is decided: no card count ends it)
    deal_end: str = "camera"
    #: what on the table shows the next deal begun: ``centre`` (the cloth gathered, a bury)
    #: or ``seat_areas`` (a set laid in a seat's area, the first lead, or a seat's press)
    new_deal: str = "centre"
    #: the facts the table's set-up and the camera's checks need, so that no caller outside
    #: the game's own folder compares its name: players at a table, the profile and deck count
    #: ``tablescan setup`` writes, the name ``setup --game`` takes, whether teams climb levels,
    #: whether play goes round in a fixed order with the lead setting the count (80-points), and
    #: whether a set is answered by one of the same count (Gouji: the read checked against it)
    seats: int = 4
    default_profile: str = "standard"
    decks: int = 2
    setup_name: str = ""
    levels: bool = True
    fixed_turn: bool = True
    answers_sets: bool = False
    #: ``module:function`` of the game's record simulator, one signature for every game:
    #: ``(profile, seed, *, hands, inject, kinds) -> (events, truth)`` (``tablescan simulate``)
    simulator: str = ""

    def _attr(self, module: str, attr: str) -> Any:
        try:
            mod = importlib.import_module(module)
        except ImportError as e:
            raise RecordError(
                f"the {self.name} engine ({module}) is not available: {e}", field="game"
            ) from None
        found = getattr(mod, attr, None)
        if found is None:
            raise RecordError(f"{module} has no {attr}", field="game")
        return found

    @property
    def rules(self) -> Any:
        """The game's ``Rules`` class."""
        return self._attr(self.rules_module, self.rules_class)

    @property
    def referee(self) -> type[RefereeLike]:
        """The game's referee class (the shared interface)."""
        return cast(type[RefereeLike], self._attr(self.referee_module, self.referee_class))

    def simulate(
        self, profile: str, seed: int, *, hands: int = 1, inject: int = 0,
        kinds: list[str] | None = None,
    ) -> tuple[list[Event], dict[str, Any]]:  # fmt: skip
        """A simulated match record for ``profile`` and its ground truth (the game's own
        simulator; ``ValueError`` for a game without one or a kind it cannot inject)."""
        if not self.simulator:
            raise ValueError(f"the {self.name} engine has no record simulator")
        module, _, attr = self.simulator.partition(":")
        try:
            sim = self._attr(module, attr)
        except RecordError as e:
            raise ValueError(str(e)) from None
        return cast(
            tuple[list[Event], dict[str, Any]],
            sim(profile, seed, hands=hands, inject=inject, kinds=kinds),
        )

    def profile_ids(self) -> list[str]:
        """Every rule profile the game ships."""
        return list(self.rules.ids())

    def load_rules(self, profile: str | Path, options: Mapping[str, Any] | None = None) -> Any:
        """The profile's rules with ``options`` (``{"section.key": value}``) applied last."""
        loader = cast(Callable[..., Any], self.rules.load)
        return loader(profile, dict(options) if options else None)


GAMES: dict[str, Game] = {
    g.name: g
    for g in (
        Game(
            "tractor",
            "80-points / Tractor (八十分, 升级, 拖拉机)",
            "engine.tractor.rules",
            "Rules",
            "engine.tractor.referee",
            "Referee",
            "tractor",
            setup_name="80-points",
            simulator="engine.tractor.record_sim:simulate_record",
        ),
        Game(
            "gouji",
            "Gouji (够级)",
            "engine.gouji.rules",
            "Rules",
            "engine.gouji.referee",
            "GoujiReferee",
            "gouji",
            deal_end="referee",
            new_deal="seat_areas",
            seats=6,
            default_profile="gouji-core",
            decks=4,
            levels=False,
            fixed_turn=False,
            answers_sets=True,
            simulator="engine.gouji.sim:simulate_record",
        ),
    )
}


def games() -> list[Game]:
    """Every registered game, in registry order."""
    return list(GAMES.values())


def find_game(name: str) -> Game:
    """The game called ``name``; a clear error naming the known ones otherwise."""
    game = GAMES.get(str(name))
    if game is None:
        raise RecordError(f"unknown game {name!r} (known: {', '.join(GAMES)})", field="game")
    return game


def game_of_profile(profile: str | Path) -> Game:
    """The game a profile id (or a TOML path of an 80-points sheet) belongs to."""
    text = str(profile)
    for game in games():
        if text in game.profile_ids():
            return game
    if text.endswith(".toml"):
        return GAMES["tractor"]
    known = "; ".join(f"{g.name}: {', '.join(g.profile_ids())}" for g in games())
    raise RecordError(f"unknown profile {text!r} ({known})", field="profile")


def referee_for(match_start: Event, profile: str | None = None) -> RefereeLike:
    """The referee for a match, its rules loaded from the record's profile (or ``profile``)
    and the record's ``options``. The one way to build a referee."""
    if match_start.get("type") != "match_start":
        raise RecordError(
            f"referee_for needs a match_start event, got {match_start.get('type')!r}",
            field="type",
        )
    game = find_game(str(match_start.get("game")))
    chosen = profile or match_start.get("profile")
    if not chosen:
        raise RecordError("match_start names no profile", field="profile")
    rules = game.load_rules(str(chosen), match_start.get("options") or None)
    return game.referee(rules)  # type: ignore[call-arg]
