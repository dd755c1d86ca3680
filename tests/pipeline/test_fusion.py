"""Fusion: reads checked against the cards themselves; failures become needs_referee, never
a silent guess."""

from __future__ import annotations

from fusion.plays import Decision, Fusion
from vision.tracking import Observation


def appeared(seat: int, cards: str, score: float = 0.95, frame: int = 0) -> Observation:
    cs = tuple(cards.split())
    return Observation(
        "appeared", f"seat{seat}", seat, frame, frame / 20, cards=cs, scores=(score,) * len(cs)
    )


def facedown(n: int) -> Observation:
    return Observation("facedown", "centre", None, 0, 0.0, count=n, scores=(0.9,) * n)


def corrections(out: list[Decision]) -> list[Decision]:
    """The camera's own corrections among a feed's decisions."""
    return [d for d in out if d.event["type"] == "correction"]


def ready(leader: int = 0) -> Fusion:
    f = Fusion(4, decks=2, min_score=0.6, banker=leader, bottom_size=8)
    assert [d.event["type"] for d in f.feed(facedown(8))] == ["bury"]
    return f


def test_third_copy_of_a_card_is_impossible_with_two_decks() -> None:
    f = ready()
    assert f.feed(appeared(0, "7H 7H"))[0].unsure is None
    d = f.feed(appeared(1, "7H 3C"))[0]
    assert d.event["type"] == "play" and d.unsure is not None
    assert d.unsure.reason == "impossible" and "7H" in d.unsure.detail
    assert d.unsure.candidates == [{"cards": ["7H", "3C"], "confidence": 0.95}]


def test_low_score_is_flagged_with_its_candidates() -> None:
    f = ready()
    d = f.feed(appeared(0, "QS", score=0.4))[0]
    assert d.unsure is not None and d.unsure.reason == "low_confidence"
    assert d.event["confidence"] == 0.4


def test_out_of_turn_is_flagged_not_judged() -> None:
    f = ready(leader=0)
    f.feed(appeared(0, "AS"))
    d = f.feed(appeared(2, "KS"))[0]
    assert d.unsure is not None and d.unsure.reason == "out_of_turn"


def test_short_follow_waits_for_its_second_card() -> None:
    f = ready()
    f.feed(appeared(0, "AS AS"))
    assert f.feed(appeared(1, "3S")) == []  # one card of a pair-follow: wait
    d = f.feed(appeared(1, "4S"))[0]
    assert d.event == {"type": "play", "seat": 1, "cards": ["3S", "4S"], "confidence": 0.95}
    assert d.unsure is None


def test_short_follow_is_flagged_when_the_next_seat_plays() -> None:
    f = ready()
    f.feed(appeared(0, "AS AS"))
    assert f.feed(appeared(1, "3S")) == []
    out = f.feed(appeared(2, "KS KS"))
    assert [d.event["seat"] for d in out] == [1, 2]
    assert out[0].unsure is not None and out[0].unsure.reason == "count"
    assert out[1].unsure is None


def test_leader_adding_cards_corrects_the_lead() -> None:
    f = ready()
    f.feed(appeared(0, "AS"))
    obs = Observation("appeared", "seat0", 0, 9, 0.45, cards=("AS",), scores=(0.9,), before=("AS",))
    d = f.feed(obs)[0]
    assert d.event["type"] == "correction" and d.ref_previous
    assert d.event["cards"] == ["AS", "AS"]
    assert f.trick.lead_count == 2


def test_declaration_before_bury_and_reveal_after() -> None:
    f = Fusion(4, decks=2, min_score=0.6, banker=None)
    assert f.feed(appeared(3, "2C 2C"))[0].event == {
        "type": "declare",
        "seat": 3,
        "cards": ["2C", "2C"],
    }
    bury = f.feed(facedown(8))[0]
    assert bury.event == {"type": "bury", "seat": 3, "count": 8}
    reveal = Observation(
        "revealed",
        "centre",
        None,
        50,
        2.5,
        cards=tuple(["3H", "3H", "5H", "6D", "6D", "4H", "8H", "10S"]),
        scores=(0.9,) * 8,
    )
    out = f.feed(reveal)
    assert [d.event["type"] for d in out] == ["bottom_reveal", "hand_end"]
    assert out[0].unsure is None
    # the hand is over: the bottom read again (a hand moving over it) writes nothing more
    assert f.feed(reveal) == []


def test_bottom_with_too_few_cards_read_is_flagged() -> None:
    f = ready()
    reveal = Observation("revealed", "centre", None, 50, 2.5, cards=("3H", "4H"), scores=(0.9, 0.9))
    assert f.feed(reveal) == []  # mid-hand faces in the centre are not the bottom: ignored
    f.seen.update({"2S": 100})  # every card of the hands played
    out = f.feed(reveal)
    assert out[0].unsure is not None and out[0].unsure.reason == "count"


def test_most_of_the_bottom_late_in_the_hand_is_the_reveal_read_in_part() -> None:
    """Some plays were missed, so not every card was seen; six faces of the eight-card bottom
    after nine tenths of the hands' cards is the reveal (flagged), not mid-hand noise."""
    six = ("3H", "4H", "5S", "6D", "7S", "9C")
    reveal = Observation("revealed", "centre", None, 50, 2.5, cards=six, scores=(0.9,) * 6)
    early = ready()
    early.seen.update({"2S": 60})
    assert early.feed(reveal) == []
    late = ready()
    late.seen.update({"2S": 90})
    out = late.feed(reveal)
    assert out[0].event["type"] == "bottom_reveal" and out[0].event["cards"] == list(six)
    assert out[0].unsure is not None and out[0].unsure.reason == "count"
    three = Observation("revealed", "centre", None, 50, 2.5, cards=six[:3], scores=(0.9,) * 3)
    few = ready()
    few.seen.update({"2S": 90})
    assert few.feed(three) == []  # three faces are no bottom until every card was seen


def test_miscounted_bottom_is_flagged_not_ruled() -> None:
    """Seven backs read where the profile buries eight: the referee would rule a wrong bury
    count on a misread, so it is written as counted but flagged."""
    f = Fusion(4, decks=2, min_score=0.6, banker=2, bottom_size=8)
    d = f.feed(facedown(7))[0]
    assert d.event == {"type": "bury", "seat": 2, "count": 7}
    assert d.unsure is not None and d.unsure.reason == "count"
    # a re-read before the first play finds the eighth card: the bury is corrected
    fix = f.feed(facedown(8))[0]
    assert fix.event["type"] == "correction" and fix.event["count"] == 8 and fix.ref_previous
    assert fix.unsure is None
    f.feed(appeared(2, "AS"))
    assert f.feed(facedown(6)) == []  # after the first play the bottom is not re-counted


def test_a_bury_counted_from_a_squared_pile_is_corrected_by_the_whole_bottom() -> None:
    """A squared pile of eight backs shows one: the bury is written flagged; when the bottom
    is turned up whole and sure, the camera corrects the bury to its eight cards."""
    f = Fusion(4, decks=2, min_score=0.6, banker=2, bottom_size=8)
    bury = f.feed(facedown(1))[0]
    assert bury.unsure is not None and bury.unsure.reason == "count"
    f.feed(appeared(2, "AS"))
    f.seen.update({"2S": 99})
    eight = ("3H", "3H", "5H", "6D", "6D", "4H", "8H", "10S")
    out = f.feed(Observation("revealed", "centre", None, 50, 2.5, cards=eight, scores=(0.9,) * 8))
    assert [d.event["type"] for d in out] == ["bottom_reveal", "correction", "hand_end"]
    assert out[0].unsure is None
    assert out[1].flags is bury and out[1].event["count"] == 8 and out[1].event["by"] == "camera"
    # a bottom read in doubt corrects nothing
    g = Fusion(4, decks=2, min_score=0.6, banker=2, bottom_size=8)
    g.feed(facedown(1))
    g.seen.update({"2S": 100})
    unsure = (0.9,) * 7 + (0.3,)
    out = g.feed(Observation("revealed", "centre", None, 50, 2.5, cards=eight, scores=unsure))
    assert [d.event["type"] for d in out] == ["bottom_reveal", "hand_end"]


def test_gouji_reads_are_checked_for_copies_but_not_for_turn_or_count() -> None:
    f = Fusion(6, decks=4, min_score=0.6, banker=0, turns=False)
    assert f.feed(appeared(0, "3H 3H 3H"))[0].unsure is None
    assert f.feed(appeared(4, "5S"))[0].unsure is None  # any seat, any count: the referee judges
    d = f.feed(appeared(2, "3H 3H"))[0]
    assert d.unsure is not None and d.unsure.reason == "impossible"  # five 3H with four decks


def test_a_lead_every_follower_contradicts_is_flagged_after_the_fact() -> None:
    f = ready()
    lead = f.feed(appeared(0, "JS QS"))[0]  # a throw of three read as two cards
    assert lead.unsure is None
    f.feed(appeared(1, "3S 4S 6S"))  # the followers' counts are flagged as they come
    f.feed(appeared(2, "KS KS 2S"))
    out = f.feed(appeared(3, "5S 9S 10S"))
    late = out[-1]
    assert late.flags is lead and late.event["type"] == "needs_referee"
    assert late.unsure is not None and "read with 2, 3, 3, 3 card(s)" in late.unsure.detail


def test_a_lead_read_without_its_pair_is_corrected_when_every_follower_laid_two() -> None:
    """A pair led and read as one card (the lower card showed a strip): once every
    follower laid two, the camera corrects the lead to the pair and flags it."""
    f = ready()
    lead = f.feed(appeared(0, "JS"))[0]
    assert lead.unsure is None
    f.feed(appeared(1, "3S 4S"))
    f.feed(appeared(2, "KS KS"))
    out = f.feed(appeared(3, "5S 9S"))
    fix = corrections(out)
    assert len(fix) == 1 and fix[0].flags is lead and fix[0].event["cards"] == ["JS", "JS"]
    late = out[-1]
    assert late.flags is lead and late.event["type"] == "needs_referee"
    assert late.unsure is not None and late.unsure.reason == "count"
    assert f.seen["JS"] == 2


def test_a_follow_that_matches_a_doubted_lead_is_flagged_with_it() -> None:
    """A pair led and read as one card, and one follower's pair read as one card too: the
    majority of follows shows the count, so both short reads go to the referee."""
    f = ready()
    lead = f.feed(appeared(0, "JH"))[0]
    f.feed(appeared(1, "3H 4H"))
    short = f.feed(appeared(2, "SJ"))[0]
    assert short.unsure is None  # as many cards as the lead: nothing to see yet
    out = f.feed(appeared(3, "5H 9H"))
    late = [d for d in out if d.event["type"] == "needs_referee"]
    assert [d.flags for d in late][-2:] == [lead, short]
    assert all(d.unsure is not None and d.unsure.reason == "count" for d in late)


def test_when_most_plays_are_short_the_one_full_play_does_not_clear_them() -> None:
    """A pair led and read as one card, a pair follow read as one card, one follower's two
    cards read right: the short majority is no proof; every short play goes to the referee
    (cards are missed far more often than invented)."""
    f = ready()
    lead = f.feed(appeared(0, "JC"))[0]
    full = f.feed(appeared(1, "8C 7H"))[0]
    assert full.unsure is not None and full.unsure.reason == "count"
    f.feed(appeared(2, "10C", score=0.5))  # flagged for its score already
    out = f.feed(appeared(3, "2S"))
    short = out[0]
    late = [d for d in out if d.event["type"] == "needs_referee"]
    assert [d.flags for d in late] == [lead, short]
    assert all(d.unsure is not None and "1, 2, 1, 1" in d.unsure.detail for d in late)


def test_one_short_follow_does_not_cast_doubt_on_an_agreeing_trick() -> None:
    f = ready()
    assert f.feed(appeared(0, "9D 9D"))[0].unsure is None
    assert f.feed(appeared(1, "3D 4D"))[0].unsure is None
    assert f.feed(appeared(2, "KD")) == []  # short: waits for its second card
    swept = Observation("cleared", "seat2", 2, 30, 1.5, before=("KD",))
    assert f.feed(swept)[0].unsure is not None
    out = f.feed(appeared(3, "5D 6D", frame=40))
    # the short KD alone is doubted (and corrected to the likely pair), not its trick
    assert [d.event["type"] for d in out] == ["play", "correction"] and out[0].unsure is None
    assert out[1].flags is not None and out[1].flags.event["cards"] == ["KD"]


def test_short_follow_swept_away_is_written_and_never_merged_with_the_next_trick() -> None:
    """A pair follow read as one card waits for its second card; when the trick is swept
    first, it is written as read (flagged), and the seat's next card is a new play."""
    f = ready()
    f.feed(appeared(0, "AS AS"))
    assert f.feed(appeared(1, "3S")) == []
    swept = Observation("cleared", "seat1", 1, 30, 1.5, before=("3S",))
    d = f.feed(swept)[0]
    assert d.event["cards"] == ["3S"] and d.unsure is not None and d.unsure.reason == "count"
    later = f.feed(appeared(1, "9C", frame=60))
    assert [x.event["cards"] for x in later if x.event["type"] == "play"] == [["9C"]]


def test_unsure_extra_cards_beyond_the_lead_are_left_out_and_shown_to_the_referee() -> None:
    """A follow read with one card too many, the extra one unsure (a face's middle read as a
    joker): the sure cards are written, flagged, with the whole read as the other candidate;
    the phantom joker uses up no copy."""
    f = ready()
    f.feed(appeared(0, "9C"))
    obs = Observation("appeared", "seat1", 1, 0, 0.0, cards=("QC", "SJ"), scores=(0.97, 0.55))
    d = f.feed(obs)[0]
    assert d.event["cards"] == ["QC"] and d.event["confidence"] == 0.97
    assert d.unsure is not None and d.unsure.reason == "low_confidence"
    assert d.unsure.candidates == [
        {"cards": ["QC"], "confidence": 0.97},
        {"cards": ["QC", "SJ"], "confidence": 0.55},
    ]
    assert f.seen["SJ"] == 0
    # a sure extra card is no phantom: the play keeps it and goes to the referee as a count
    sure = Observation("appeared", "seat2", 2, 0, 0.0, cards=("KC", "4C"), scores=(0.97, 0.95))
    d2 = f.feed(sure)[0]
    assert d2.event["cards"] == ["KC", "4C"] and d2.unsure is not None
    assert d2.unsure.reason == "count"


def test_a_lead_with_an_unsure_extra_card_is_corrected_when_every_follower_laid_fewer() -> None:
    """Each short follow waits for a second card, then is written as read when the next seat
    plays (or the trick is swept); once the trick is whole, the lead is corrected."""
    f = ready()
    obs = Observation("appeared", "seat0", 0, 0, 0.0, cards=("QC", "SJ"), scores=(0.97, 0.55))
    lead = f.feed(obs)[0]
    assert lead.unsure is not None and lead.unsure.reason == "low_confidence"
    f.feed(appeared(1, "3C"))
    f.feed(appeared(2, "KC"))
    f.feed(appeared(3, "5C"))
    out = f.feed(Observation("cleared", "seat3", 3, 30, 1.5, before=("5C",)))
    fix = corrections(out)
    assert len(fix) == 1 and fix[0].flags is lead and fix[0].event["cards"] == ["QC"]
    assert "unsure SJ left out" in fix[0].event["why"]
    assert not [d for d in out if d.event["type"] == "needs_referee"]  # the counts agree now
    assert f.seen["SJ"] == 0 and f.seen["QC"] == 1


def test_a_lead_whose_extra_card_is_sure_is_not_corrected() -> None:
    f = ready()
    lead = f.feed(appeared(0, "QC 4C"))[0]
    f.feed(appeared(1, "3C"))
    f.feed(appeared(2, "KC"))
    f.feed(appeared(3, "5C"))
    out = f.feed(Observation("cleared", "seat3", 3, 30, 1.5, before=("5C",)))
    assert not corrections(out)
    late = [d for d in out if d.event["type"] == "needs_referee" and d.flags is lead]
    assert len(late) == 1 and late[0].unsure is not None and late[0].unsure.reason == "count"


def test_unsure_faces_beyond_the_bottom_size_are_left_out_of_the_reveal() -> None:
    f = ready()
    f.seen.update({"2S": 100})
    assert f.expects_reveal()
    cards = ("3C", "3C", "3H", "3S", "4H", "6C", "6S", "8H", "QS", "3H")
    scores = (0.95,) * 8 + (0.4, 0.5)
    out = f.feed(Observation("revealed", "centre", None, 50, 2.5, cards=cards, scores=scores))
    reveal = out[0]
    assert reveal.event["cards"] == list(cards[:8])
    assert reveal.unsure is not None and "unsure QS 3H left out" in reveal.unsure.detail
    assert reveal.unsure.candidates[1] == {"cards": list(cards), "confidence": 0.4}
    assert not f.expects_reveal()  # the hand is over


def test_a_third_copy_casts_doubt_on_the_earlier_reads_of_that_card() -> None:
    """8H read as 9H with a sure score, then the two real 9Hs: the third copy proves one of
    the three reads wrong, not which, so the earlier sure ones go to the referee too."""
    f = ready()
    first = f.feed(appeared(0, "9H"))[0]
    f.feed(appeared(1, "3H"))
    second = f.feed(appeared(2, "9H"))[0]
    f.feed(appeared(3, "4H"))
    out = f.feed(appeared(2, "9H"))  # seat 2 won, leads the next trick
    assert out[0].unsure is not None and out[0].unsure.reason == "impossible"
    late = [d for d in out if d.flags is not None]
    assert [d.flags for d in late] == [first, second]
    assert all(d.event["reason"] == "later_doubt" for d in late)
    assert f.feed(appeared(3, "9H")) and not [  # a fourth: flagged itself, nothing twice
        d for d in f.feed(appeared(0, "9H")) if d.flags in (first, second)
    ]


def test_a_play_out_of_turn_casts_doubt_on_its_trick() -> None:
    """A missed pair card misaligned the tricks: the seat plays again before the trick it is
    in went round; the plays that trick's checks passed are doubtful."""
    f = ready()
    lead = f.feed(appeared(0, "10C", score=0.5))[0]
    follow = f.feed(appeared(1, "2S"))[0]
    assert follow.unsure is None
    out = f.feed(appeared(1, "KC"))
    assert out[0].unsure is not None and out[0].unsure.reason == "out_of_turn"
    late = [d for d in out if d.flags is not None]
    assert [d.flags for d in late] == [follow]  # the lead was flagged already
    assert lead.unsure is not None


def test_a_face_down_card_beside_a_play_sends_it_to_a_referee() -> None:
    """A back among a seat's cards is a card the camera cannot read: the faces are written,
    never passed as the whole play; backs alone are no play at all."""
    f = ready()
    d = f.feed(appeared(0, "AS back"))[0]
    assert d.event["cards"] == ["AS"] and d.unsure is not None
    assert d.unsure.reason == "face_down" and "1 face-down" in d.unsure.detail
    assert f.feed(appeared(1, "back")) == [] and f.checks_failed["face_down"] == 2
    # a short follow with a back waits for its other card and keeps the doubt
    f.feed(appeared(1, "KS"))
    f.feed(appeared(2, "AD AD"))
    f.feed(appeared(3, "3D 4D"))
    f.feed(appeared(0, "5S 5S"))
    assert f.feed(appeared(1, "back 6S")) == []
    d = f.feed(appeared(1, "7S"))[0]
    assert d.event["cards"] == ["6S", "7S"] and d.unsure is not None
    assert d.unsure.reason == "face_down"


def test_wanted_is_the_count_the_rules_require_of_the_seat_to_play() -> None:
    """What the node reads again when a fresh read is short: the lead's count for the seat
    to follow, less what a short follow already laid; nothing for a leader or off turn."""
    f = ready(leader=0)
    assert f.wanted(0) is None  # the leader sets the count
    f.feed(appeared(0, "AS AS"))
    assert f.wanted(1) == 2 and f.wanted(2) is None
    f.feed(appeared(1, "3S"))  # short: waits for its other card
    assert f.wanted(1) == 1
    f.feed(appeared(1, "4S"))
    assert f.wanted(1) is None and f.wanted(2) == 2


def cleared(seat: int, frame: int = 0) -> Observation:
    return Observation("cleared", f"seat{seat}", seat, frame, frame / 20)


def test_a_trick_swept_before_every_play_was_read_flags_its_plays_and_the_next() -> None:
    """The winner sweeps a trick of which the camera read three plays: one was missed, so
    the plays were checked against the wrong trick and every later turn is off by one.
    All are sent to a referee, never passed as sure."""
    f = ready(leader=0)
    for seat, cards in ((0, "AS"), (1, "3S"), (2, "4S")):  # seat 3's play was missed
        assert f.feed(appeared(seat, cards))[0].unsure is None
    assert all(f.feed(cleared(s)) == [] for s in range(4))
    out = f.feed(appeared(3, "KD"))  # the next trick's lead, seat 3 having won
    late = [d for d in out if d.event["type"] == "needs_referee"]
    assert [d.flags.event["cards"] for d in late if d.flags] == [["AS"], ["3S"], ["4S"]]
    assert all(d.unsure and d.unsure.reason == "trick_short" for d in late)
    play = next(d for d in out if d.event["type"] == "play")
    assert play.unsure is not None and play.unsure.reason == "trick_short"
    assert f.checks_failed["trick_short"] == 2


def test_a_trick_swept_whole_raises_no_doubt() -> None:
    f = ready(leader=0)
    for seat, cards in ((0, "AS"), (1, "3S"), (2, "4S"), (3, "5S")):
        f.feed(appeared(seat, cards))
    for s in range(4):
        f.feed(cleared(s))
    out = f.feed(appeared(0, "KD"))
    assert len(out) == 1 and out[0].unsure is None and "trick_short" not in f.checks_failed


def test_a_play_one_card_short_of_the_trick_is_corrected_to_the_likely_pair() -> None:
    """A pair's lower card shows only a strip: a follow read JS where most plays of the
    trick have two cards is corrected by the camera to JS JS once the trick is read whole,
    and flagged (it was flagged as it came already: it stays so)."""
    f = ready(leader=0)
    f.feed(appeared(0, "AH AH"))
    f.feed(appeared(1, "JS"))  # short: waits for its other card
    out = f.feed(appeared(2, "3H 3H"))  # the next seat played: the short follow is written
    short = out[0]
    assert short.event["cards"] == ["JS"] and short.unsure and short.unsure.reason == "count"
    out = f.feed(appeared(3, "5H 5H"))
    fix = corrections(out)
    assert len(fix) == 1 and fix[0].flags is short and fix[0].event["cards"] == ["JS", "JS"]
    assert f.seen["JS"] == 2
    # a tie of two and one: the larger count wins, unless the copy cannot exist
    f.feed(appeared(0, "7D 7D"))
    f.feed(appeared(1, "QD"))
    f.feed(appeared(2, "QD KD"))
    assert f.feed(appeared(3, "2C")) == []  # short: waits, until the next trick opens
    out = f.feed(appeared(0, "8H 8H 9H 9H"))
    assert [d.event["cards"] for d in corrections(out)] == [["2C", "2C"]]
    # counts two apart (a tractor read as two cards): no guess
    f.feed(appeared(1, "3H 4H"))
    f.feed(appeared(2, "5H 5H 6H 6H"))
    out = f.feed(appeared(3, "10H 10H JH JH"))
    assert not corrections(out)


def test_a_play_with_one_card_read_twice_is_corrected_when_the_trick_disagrees() -> None:
    """A corner seen twice: 5C 5C 9C where every other play has two cards is most likely
    5C 9C. Corrected by the camera after the trick, flagged; a play over by a card that
    no copy explains (three faces) is left as read."""
    f = ready(leader=0)
    f.feed(appeared(0, "AC KC"))
    over = f.feed(appeared(1, "5C 5C 9C"))[0]
    f.feed(appeared(2, "3C 4C"))
    out = f.feed(appeared(3, "6C 7C"))
    fix = corrections(out)
    assert len(fix) == 1 and fix[0].flags is over and fix[0].event["cards"] == ["5C", "9C"]
    assert f.seen["5C"] == 1
    f.feed(appeared(0, "AD KD"))
    f.feed(appeared(1, "5D 8D 9D"))
    f.feed(appeared(2, "3D 4D"))
    out = f.feed(appeared(3, "6D 7D"))
    assert not corrections(out)


def test_a_lead_read_with_a_card_too_many_does_not_pair_up_its_followers() -> None:
    """Counts 2, 1, 1, 1: the lead is the likely misread (a corner seen twice), not three
    followers who all missed a pair's lower card."""
    f = ready(leader=0)
    f.feed(appeared(0, "5C 5C"))
    f.feed(appeared(1, "3C"))
    f.feed(appeared(2, "7C"))
    out = f.feed(appeared(3, "9C"))
    assert not corrections(out)
