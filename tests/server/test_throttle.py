"""The login back-off, as a pure function of failures and time."""

from trickroom.server.throttle import Backoff


def test_a_few_failures_are_free_then_each_waits_twice_as_long_up_to_the_cap():
    b = Backoff(free=3, base=1.0, cap=5.0)
    for _ in range(2):
        b.failed("bob", 0.0)
    assert b.wait("bob", 0.0) == 0
    b.failed("bob", 0.0)  # the third: the wait starts
    assert b.wait("bob", 0.0) == 1.0
    b.failed("bob", 1.0)
    assert b.wait("bob", 1.0) == 2.0
    b.failed("bob", 3.0)
    b.failed("bob", 7.0)
    assert b.wait("bob", 7.0) == 5.0  # 8 s, capped
    assert b.wait("ann", 7.0) == 0


def test_a_success_clears_the_count_and_old_failures_are_forgotten():
    b = Backoff(free=1, base=1.0, window=60.0)
    b.failed("bob", 0.0)
    b.succeeded("bob")
    assert b.wait("bob", 0.0) == 0
    b.failed("ann", 0.0)
    assert b.wait("ann", 0.5) == 0.5
    b.failed("ann", 100.0)  # the first was over a minute ago: a fresh count
    assert b.wait("ann", 100.0) == 1.0


def test_a_flood_of_names_keeps_the_table_bounded():
    b = Backoff(free=1, max_keys=100)
    for i in range(1000):
        b.failed(f"user{i}", float(i))
    assert len(b) == 100 and b.wait("user999", 999.0) > 0
