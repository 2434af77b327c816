"""A rematch (issue 35, item 4): after game over the same four play again, with the seats
kept or, if most of the table asks, with new partners; robots keep their seats; ranked
rooms keep their own seating."""

from __future__ import annotations

from tests.server.tables.harness import bench
from tests.server.tables.test_machine import play_out
from trickroom.server.tables.commands import Fill, PlayAgain


def over(table) -> None:
    play_out(table)
    assert table.machine.state.phase == "over"


def seated_names(table) -> list[str | None]:
    return [s.name for s in table.machine.state.seats]


def test_a_rematch_keeps_the_seats_unless_most_ask_for_new_partners():
    table = bench(rules={"target": 100, "mercy": 100})
    table.seat_four()
    over(table)
    before = seated_names(table)
    table.do(PlayAgain(table.who(1), None, rotate=True))
    table.do(PlayAgain(table.who(2), None, rotate=True))  # two of four: a tie keeps them
    for client in (3, 4):
        table.do(PlayAgain(table.who(client), None))
    assert table.machine.state.phase == "playing" and seated_names(table) == before


def test_new_partners_move_three_players_one_seat_on_and_tell_each_their_seat():
    table = bench(rules={"target": 100, "mercy": 100})
    table.seat_four()
    over(table)
    north, east, south, west = seated_names(table)
    for client in (1, 2, 3):
        table.do(PlayAgain(table.who(client), None, rotate=True))
    table.do(PlayAgain(table.who(4), None))
    state = table.machine.state
    assert state.phase == "playing"
    assert seated_names(table) == [north, west, east, south]  # North now partners East
    assert [s.index for s in state.seats] == [0, 1, 2, 3]
    for client, seat in ((2, 2), (3, 3), (4, 1)):  # East, South, West moved on
        told = [m for m in table.inbox[client] if m["type"] == "seated"][-1]
        assert told["seat"] == seat and told["seat_token"] != table.tokens[client]
        assert table.machine.seat_of(client).index == seat
    # Three rematches with new partners give North each partner once.
    partners = {state.seats[2].name}
    for _ in range(2):
        over(table)
        for client in (1, 2, 3, 4):
            table.do(PlayAgain(table.who(client), None, rotate=True))
        partners.add(state.seats[2].name)
    assert partners == {east, south, west}


def test_robots_keep_their_seats_in_a_rematch():
    table = bench(rules={"target": 100, "mercy": 100})
    table.sit(1, 0)
    table.do(Fill(table.who(1), None))
    over(table)
    table.do(PlayAgain(table.who(1), None, rotate=True))
    state = table.machine.state
    assert state.phase == "playing"
    assert [s.kind for s in state.seats] == ["human", "robot", "robot", "robot"]


def test_a_ranked_room_plays_again_with_its_own_seating():
    table = bench(room="spades-zone")
    table.seat_four()
    error = table.refused(PlayAgain(table.who(1), None, rotate=True))
    assert error.code == "invalid_field" and "ranked" in error.message
