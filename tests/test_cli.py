import io

from rich.console import Console

from trickroom.server.cli import demo_language, play_demo


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


def test_the_demo_prints_each_hand_s_header_and_bids_before_its_tricks():
    out = io.StringIO()
    play_demo(seed=1, robot="heuristic", console=Console(file=out, width=120))
    lines = out.getvalue().splitlines()
    headers = [i for i, line in enumerate(lines) if line.startswith("hand ") and "bids" in line]
    firsts = [i for i, line in enumerate(lines) if "trick  1:" in line]
    assert len(headers) == len(firsts) > 1
    assert all(h < f for h, f in zip(headers, firsts, strict=True))
    assert all(f < h for f, h in zip(firsts, headers[1:], strict=False))


def test_a_command_whose_reader_stops_early_ends_without_a_traceback():
    """``trickroom schema | head`` (found by a new user): a BrokenPipeError traceback."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "from trickroom.server.cli import main; "
                             "main(['schema'])"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10).startswith(b"{")
    proc.stdout.close()  # the reader leaves, as head does, long before the schema's end
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_the_demo_speaks_the_language_asked_or_the_terminal_s(monkeypatch):
    out = io.StringIO()
    play_demo(seed=2, robot="random", console=Console(file=out, width=120), language="el")
    text = out.getvalue()
    assert "την πήρε ο" in text and "Τέλος παιχνιδιού" in text
    assert "won by" not in text and "Game over" not in text
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    assert demo_language(None) == "en"
    monkeypatch.setenv("LANG", "el_GR.UTF-8")
    assert demo_language(None) == "el"
    assert demo_language("en-XA") == "en-XA"
    monkeypatch.setenv("LC_ALL", "C")
    assert demo_language(None) == "el"  # C says nothing of a language: LANG does
