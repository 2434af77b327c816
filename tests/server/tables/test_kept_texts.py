"""A table's texts for people cross to another node as template and values (issue 37):
the node that receives them renders each for its own readers, in each one's language,
exactly as the table's own node would have."""

from __future__ import annotations

import json

from tests.i18n.test_rating_texts import RATINGS, results
from trickroom.game.robots.bidding import SEARCHED
from trickroom.i18n import Msg
from trickroom.i18n.catalogs import LANGUAGES
from trickroom.ratings import SYSTEMS
from trickroom.server.tables.log import EventLog, Shared


def test_a_rating_breakdown_and_a_bid_reason_read_alike_on_either_node():
    changes = [change for name in ("zone", "wocg", "points_el")
               for change in SYSTEMS[name].rate(results(name)[0], RATINGS)]
    breakdowns = [{"player": c.player, "breakdown": [{"text": t.text, "value": t.value}
                                                     for t in c.breakdown]} for c in changes]
    log = EventLog("t1", 10)
    over = log.publish({"type": "game_over", "ratings": breakdowns}, texts=True).message
    told = Msg("{bid}: {how}", bid=Msg("nil"), how=SEARCHED)  # a search robot's, as told
    bid = log.publish({"type": "bid", "seat": 1, "value": 0, "why": told},
                      texts=True).message
    plain = log.publish({"type": "deal", "seat": 0}).message
    for sent in (over, bid):
        there = Shared.of_kept(sent.kept)
        assert json.loads(there.data) == json.loads(sent.data)  # English
        for language in LANGUAGES[1:]:
            assert sent.localize is not None and there.localize is not None
            assert json.loads(there.localize(language)) == json.loads(sent.localize(language))
    assert over.localize is not None and bid.localize is not None
    assert "1.630,25" in over.localize("el").decode()
    assert "play-outs" in bid.data.decode() and "play-outs" not in bid.localize("el").decode()
    assert plain.kept == plain.data  # a message without texts goes as it is
