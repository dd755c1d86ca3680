"""Gouji's own panel of the table view: places 头科…大落, 够级 and burns, 开点, 憋3, tribute,
the sheet's score table and the deal's scores, folded from the judge's stored rulings.

Chosen through the game registry (``engine.games.Game.view == "gouji"``): ``dashboard.view``
keeps one panel object per match and puts its ``state()`` under the view's ``panel`` key.
Nothing is judged here; the profile's score table is the sheet's, read from its rules.
"""

from __future__ import annotations

from typing import Any

from engine.gouji.plays import is_gouji
from engine.gouji.rules import ProfileError, Rules
from engine.gouji.scoring import PLACE_NAMES, match_summary
from engine.gouji.table import TRIBUTE_WHAT
from engine.record import Event

#: the rules whose set is withdrawn (its cards go back to the hand), per engine.gouji.referee
WITHDRAWN = frozenset(
    {
        "invalid_set",
        "not_beating",
        "played_after_pass",
        "no_right",
        "out_of_turn",
        "early_three",
        "dead_set",
    }
)


class GoujiPanel:
    """The Gouji panel's state for one match (reset at each deal where the deal says so).

    ``hand_size``, ``withdrawn`` and ``exchange_moves`` tell the game-free fold
    (``dashboard.view``) how Gouji's cards-left counts move."""

    withdrawn = WITHDRAWN

    def __init__(self, match: Event) -> None:
        self.profile = str(match.get("profile"))
        try:
            self.rules: Rules | None = Rules.load(self.profile)
        except Exception:  # an unknown sheet: the panel shows what the record says
            self.rules = None
        self.deals: list[dict[str, Any]] = []  # finished deals' outcomes, by the judge
        mode = self.rules.score.tribute if self.rules is not None else "unstated"
        quote = self.rules.cite.get("score.tribute") if self.rules is not None else None
        self.tribute_rule = {"mode": mode, "quote": quote}  # the sheet's words, from its cite
        self.hand_size = _hand_size(match)
        self.new_deal(None)

    def new_deal(self, start: Event | None) -> None:
        self.places: list[int] = []
        self.burns: list[dict[str, Any]] = []
        self.opened: list[int] = []
        self.blocks: list[dict[str, Any]] = []
        self.tribute: list[dict[str, Any]] = []
        self.top: dict[str, Any] | None = None
        self.deal = start.get("hand") if start else None

    @staticmethod
    def exchange_moves(what: str) -> bool:
        """Whether cards passed outside play move between the counts as the event comes: a
        bought card is paid for with as many (counts stay), and a tribute moves them once
        the judge accepts it (``dashboard.view``'s ``_tribute_ruled``)."""
        return what not in ("buy", "买3", "买4") and what not in TRIBUTE_WHAT

    def event(self, ev: Event) -> None:
        kind = ev.get("type")
        if kind == "hand_start":
            self.new_deal(ev)
        elif kind == "play":
            cards = list(ev.get("cards") or [])
            gouji = bool(self.rules is not None and cards and _safe_gouji(cards, self.rules))
            self.top = {"seat": ev.get("seat"), "cards": cards, "gouji": gouji}

    def ruling(self, r: dict[str, Any]) -> None:
        kind, seat = r.get("kind"), r.get("seat")
        if kind == "place" and isinstance(seat, int) and seat not in self.places:
            self.places.append(seat)
        elif kind == "burn" and isinstance(seat, int):
            victim = self.top["seat"] if self.top else None
            self.burns.append({"seat": seat, "victim": victim, "seq": r.get("at_seq")})
        elif kind == "open" and isinstance(seat, int) and seat not in self.opened:
            self.opened.append(seat)
        elif kind == "blocked" and isinstance(seat, int):
            self.blocks.append({"seat": seat, "by": r.get("by")})
        elif kind == "tribute" and isinstance(seat, int):  # the one source: what the judge took
            entry = {"from": seat, "to": r.get("to"), "count": r.get("count")}
            entry |= {"cards": list(r.get("cards") or []), "seq": r.get("at_seq")}
            entry["back"] = r.get("tribute") == "huan"
            self.tribute = [x for x in self.tribute if x.get("seq") != entry["seq"]] + [entry]
        elif kind == "hand" and isinstance(r.get("outcome"), dict):
            out = r["outcome"]
            self.deals = [d for d in self.deals if d.get("hand") != r.get("hand")]
            self.deals.append({"hand": r.get("hand"), **out})

    def match_result(self) -> dict[str, Any]:
        """A match a referee ended without a result (the dashboard's "end the match"): deals
        judged, each team's recorded points summed, the team ahead (the judge's own sums)."""
        scored = [d["scores"] for d in self.deals if isinstance(d.get("scores"), dict)]
        first_to = self.rules.match.first_to if self.rules is not None else 0
        return match_summary([s["recorded"] for s in scored], first_to)

    def state(self) -> dict[str, Any]:
        table = list(self.rules.score.places) if self.rules is not None else []
        return {
            "kind": "gouji",
            "deal": self.deal,
            "places": [
                {"seat": s, "place": PLACE_NAMES[i]} for i, s in enumerate(self.places) if i < 6
            ],
            "place_names": list(PLACE_NAMES),
            "gouji_top": self.top if self.top and self.top["gouji"] else None,
            "burns": list(self.burns),
            "opened": list(self.opened),
            "blocks": list(self.blocks),
            "tribute": list(self.tribute),
            "tribute_rule": dict(self.tribute_rule),
            "tribute_points": self._tribute_points(),
            "score_table": [{"place": PLACE_NAMES[i], "points": p} for i, p in enumerate(table)],
            "deals": list(self.deals),
        }

    def _tribute_points(self) -> list[dict[str, Any]]:
        """The tribute items (``"tribute": true``) the judge scored for this deal, once its
        score is in: 进贡 per card (changshi), 点贡/闷贡/烧贡 (jinan)."""
        deal = next((d for d in self.deals if d.get("hand") == self.deal), None)
        items = ((deal or {}).get("scores") or {}).get("items") or []
        return [
            {"seat": seat, "what": i.get("what"), "points": i.get("points")}
            for seat, mine in enumerate(items)
            for i in mine
            if isinstance(i, dict) and i.get("tribute")
        ]


def _safe_gouji(cards: list[str], rules: Rules) -> bool:
    try:
        return is_gouji(cards, rules)
    except Exception:  # a misread card name: not a 够级 set as far as the panel knows
        return False


def _hand_size(match: Event) -> int:
    """Cards a Gouji seat starts with: the match's deal (a house's 3 decks: 27), the core's
    where the record names a profile this engine does not know (the counts stay a guess)."""
    try:
        rules = Rules.load(str(match.get("profile")), match.get("options") or None)
    except ProfileError:
        rules = Rules.load("gouji-core")
    return rules.deal.hand
