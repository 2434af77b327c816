import random

import pytest

from trickroom.game.cards import (
    CardParseError,
    card_text,
    cards_of,
    deal,
    hands_from_texts,
    parse_card,
    parse_cards,
    texts_of,
)


def test_a_card_is_rank_then_suit():
    assert card_text(parse_card("AS")) == "AS"
    assert card_text(parse_card("TH")) == "TH"
    assert card_text(parse_card("2C")) == "2C"


def test_every_card_round_trips_through_text():
    assert [parse_card(card_text(c)) for c in range(52)] == list(range(52))


def test_people_may_type_lower_case_or_ten():
    assert parse_card("qs") == parse_card("QS")
    assert parse_card("10h") == parse_card("TH")


@pytest.mark.parametrize(
    ("text", "words"),
    [("1S", "rank '1'"), ("AX", "suit 'X'"), ("ASS", "two characters"), ("", "two characters")],
)
def test_malformed_text_names_the_text_and_the_problem(text, words):
    with pytest.raises(CardParseError) as err:
        parse_card(text)
    assert repr(text) in str(err.value)
    assert words in str(err.value)


def test_a_non_string_is_not_a_card():
    with pytest.raises(CardParseError, match="not a card"):
        parse_card(12)  # type: ignore[arg-type]


def test_a_hand_may_not_list_a_card_twice():
    with pytest.raises(CardParseError, match="'QS' is listed twice"):
        parse_cards(["QS", "AH", "QS"])


def test_within_a_suit_a_higher_card_is_a_higher_int_and_spades_are_highest():
    assert parse_card("AS") > parse_card("KS") > parse_card("AH") > parse_card("AD")


def test_masks_list_cards_low_to_high_by_suit():
    assert texts_of(parse_cards(["AS", "2C", "TH"])) == ["2C", "TH", "AS"]
    assert cards_of(0) == []


def test_a_seeded_deal_is_four_disjoint_hands_of_13_and_repeats_for_the_seed():
    hands = deal(random.Random(5))
    assert [h.bit_count() for h in hands] == [13] * 4
    assert hands[0] | hands[1] | hands[2] | hands[3] == (1 << 52) - 1
    assert deal(random.Random(5)) == hands
    assert deal(random.Random(6)) != hands


def test_an_explicit_deal_must_cover_the_deck_once():
    good = [texts_of(h) for h in deal(random.Random(1))]
    assert hands_from_texts(good) == [parse_cards(h) for h in good]
    bad = [good[0], good[0], good[2], good[3]]
    with pytest.raises(CardParseError, match="dealt twice"):
        hands_from_texts(bad)
    with pytest.raises(CardParseError, match="has 12 cards"):
        hands_from_texts([good[0][:12], good[1], good[2], good[3]])
