import io

from rich.console import Console

from server.cli import play_demo


def test_the_demo_plays_a_whole_spades_game_and_prints_every_hand():
    out = io.StringIO()
    game = play_demo(seed=2, robot="random", console=Console(file=out, width=120))
    text = out.getvalue()
    assert game.phase == "game_over"
    assert text.count("trick 13") == len(game.hand_results)
    assert "Game over" in text and f"{game.scores[0]} to {game.scores[1]}" in text
