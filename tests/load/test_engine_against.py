"""bench/engine.py --against: an older commit's engine measured in the same run (issue 40,
item 4), so an engine that lost ground to new features is caught."""

import subprocess

from bench.engine import ROOT, against, tree_of


def test_the_tree_of_a_commit_is_that_commit_s_engine(tmp_path):
    old = subprocess.run(["git", "rev-list", "--max-count=1", "HEAD"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    tree = tree_of(old, tmp_path)
    for path in ("trickroom/game/spades.py", "trickroom/game/hearts.py"):
        blob = subprocess.run(["git", "show", f"{old}:{path}"], cwd=ROOT, check=True,
                              capture_output=True).stdout
        assert (tree / path).read_bytes() == blob


def test_both_games_are_compared_with_the_older_tree():
    ratios = against("HEAD", seconds=0.01, rounds=1)
    assert set(ratios) == {"spades", "hearts"}
    assert all(r > 0 for r in ratios.values())
