"""A short rendered hand (three tricks), made once per test session, that ``tablescan run``
judges with the renderer's own labels standing in for the recognizer (deterministic, fast)."""

from __future__ import annotations

import pytest

from tablescan.render import RenderResult, render_simulated
from tablescan.render_gouji import GoujiRender, render_gouji, simulated_deals

SEED = 7
TRICKS = 3
DESIGN = "gnome/tango_nuevo"  # the quickest SVG deck to render


@pytest.fixture(scope="session")
def hand_clip(tmp_path_factory: pytest.TempPathFactory) -> RenderResult:
    out = tmp_path_factory.mktemp("hand") / "hand.mp4"
    return render_simulated("standard", SEED, out, split="eval", tricks=TRICKS, design=DESIGN)


MATCH_SEED = 8  # two tricks a deal: the truth's next deal is what the judged short deal gives
MATCH_TRICKS = 2


@pytest.fixture(scope="session")
def match_clip(tmp_path_factory: pytest.TempPathFactory) -> RenderResult:
    """A rendered two-deal match (cards gathered and dealt again between the deals)."""
    out = tmp_path_factory.mktemp("match") / "match.mp4"
    return render_simulated(
        "standard", MATCH_SEED, out, split="eval", tricks=MATCH_TRICKS, design=DESIGN, hands=2
    )


@pytest.fixture(scope="session")
def gouji_clip(tmp_path_factory: pytest.TempPathFactory) -> GoujiRender:
    """The first 12 events of a Gouji deal (five passes pressed among them), ~190 frames."""
    events = simulated_deals("gouji-abqu", 3, 1, None)[:12]
    return render_gouji(events, tmp_path_factory.mktemp("g") / "g.mp4", 3, "eval", None)
