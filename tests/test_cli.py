import io

from rich.console import Console

from trickroom.server.cli import play_demo


def test_the_demo_plays_a_whole_spades_game_and_prints_every_hand():
    out = io.StringIO()
    game = play_demo(seed=2, robot="random", console=Console(file=out, width=120))
    text = out.getvalue()
    assert game.phase == "game_over"
    assert text.count("trick 13") == len(game.hand_results)
    won = game.winners[0] % 2  # the winners' score first
    assert "Game over" in text and f"{game.scores[won]} to {game.scores[1 - won]}" in text


def test_every_command_line_option_says_what_it_does():
    import argparse

    from trickroom.server.cli import build_parser

    parser = build_parser()
    assert "``" not in parser.format_help()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, sub in commands.choices.items():
        for action in sub._actions:
            assert action.help, (name, action.option_strings)
        assert "``" not in sub.format_help()
