"""The match clock's rule (from the sheet, or a table's longer stage limit) and the decision
when it runs out: pure, the elapsed time and the match's state handed in as data.

The sheets (TRACTOR.md B2, B7, B11, B15, B18, B19) limit a match (1 h; semi-finals and the
final 1.5 h; 45-minute rounds; 6 h before the last eight) and say who wins at time: the higher
level; on equal levels the banker side, or one more deal, or (four-deck) a play-off the
referee runs. Some finish the deal in play first. A sheet that names no at-time rule gets
none here: at time the clock says so and a referee decides, because a guessed winner would
be a false ruling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: what decides on equal levels at time: the banker side wins (``banker``), one more deal is
#: played (``extra_deal``), a play-off off the record (``playoff``: four-deck's 猜拳 and 争打A),
#: or nothing the sheet states (``""``)
TIES = ("", "banker", "extra_deal", "playoff")
WARN_S = 300.0  #: the clock warns at 5 minutes left


@dataclass(frozen=True, slots=True)
class ClockRule:
    """A match's limit and what happens at time. ``minutes`` 0: no limit."""

    minutes: int = 0
    at_time: str = ""  # one of TIES
    finish_deal: bool = False  # the deal in play at time is played to its end first
    cite: str = ""

    @property
    def limit_s(self) -> float:
        return 60.0 * self.minutes

    def with_minutes(self, minutes: int) -> ClockRule:
        """The same at-time rule with a stage's own limit (a table's ``clock_minutes``)."""
        return ClockRule(minutes, self.at_time, self.finish_deal, self.cite)


@dataclass(frozen=True, slots=True)
class MatchNow:
    """What the decision needs of the match, as the node reads it from the record."""

    elapsed_s: float  # seconds since the match began (the record's ``t``)
    deal_open: bool  # a deal is in play (its ``hand_start`` has no ``hand_end`` yet)
    open_at_time: bool  # a deal was in play when the time ran out
    deals_ended_after: int  # deals whose ``hand_end`` came at or after the limit
    levels: tuple[str, ...]  # each team's level now, in ``teams`` order
    ladder: tuple[str, ...]  # the profile's level ladder (low to high)
    banker_team: int | None  # the banker side now: the deal in play's, else the next deal's


@dataclass(frozen=True, slots=True)
class AtTime:
    """The decision. ``action``: ``running`` (time left), ``play_on`` (finish the deal in
    play, or play the extra deal), ``end`` (write ``match_end``; ``stop_deal``: end the deal
    in play first), ``referee`` (time is up and the sheet decides nothing here)."""

    action: str
    stop_deal: bool = False
    winner: int | None = None
    by: str = ""  # level | banker | extra_deal | playoff | unstated
    detail: str = ""

    def result(self, rule: ClockRule) -> dict[str, Any]:
        """``match_end.result.time``: decided on time, by which rule, citing the sheet."""
        return {
            "minutes": rule.minutes,
            "at_time": rule.at_time,
            "finish_deal": rule.finish_deal,
            "by": self.by,
            "detail": self.detail,
            "cite": rule.cite,
        }


def time_left(rule: ClockRule, elapsed_s: float) -> float | None:
    """Seconds left (never below 0), or None when the match has no limit."""
    if rule.minutes <= 0:
        return None
    return max(0.0, rule.limit_s - elapsed_s)


def _ahead(levels: tuple[str, ...], ladder: tuple[str, ...]) -> int | str | None:
    """The team with the higher level; None on equal levels; ``"?"`` when not comparable."""
    if len(levels) != 2 or any(lv not in ladder for lv in levels):
        return "?"
    a, b = (ladder.index(lv) for lv in levels)
    return None if a == b else (0 if a > b else 1)


def decide(rule: ClockRule, now: MatchNow) -> AtTime:
    """What the sheet's at-time rule says of the match ``now`` (see ``AtTime``)."""
    if rule.minutes <= 0 or now.elapsed_s < rule.limit_s:
        return AtTime("running")
    if not rule.at_time:
        return AtTime("referee", by="unstated", detail="the sheet states no at-time rule")
    if now.deal_open and rule.finish_deal:
        return AtTime("play_on", detail="the deal in play is finished first")
    ahead = _ahead(now.levels, now.ladder)
    if ahead == "?":
        return AtTime("referee", by="unstated", detail="the levels cannot be compared")
    stop = now.deal_open  # the sheet does not finish the deal in play: it stops here
    if isinstance(ahead, int):
        return AtTime("end", stop, ahead, "level", f"the higher level wins ({now.levels[ahead]})")
    if rule.at_time == "banker":
        if now.banker_team is None:
            return AtTime("referee", by="banker", detail="equal levels, the banker side unknown")
        return AtTime("end", stop, now.banker_team, "banker", "equal levels: the banker side")
    if rule.at_time == "extra_deal":
        extra = now.deals_ended_after - (1 if rule.finish_deal and now.open_at_time else 0)
        if extra < 1:  # the deal in play at time (when the sheet stops none) is the extra one
            return AtTime("play_on", detail="equal levels: one extra deal")
        return AtTime(
            "end",
            False,
            None,
            "extra_deal",
            "equal levels after the extra deal; the sheet says no more: a referee decides",
        )
    return AtTime(
        "end", stop, None, "playoff", "equal levels: the sheet's play-off, run by a referee"
    )
