"""A bot's whole duplicate match against robots (docs/protocol.md, "Sandboxes"): the same
Spades deals twice, its side holding the other side's cards the second time, each deal
scored against the robots who held the same cards. Put your bot's brain in ``choose``."""
import asyncio
import sys

from trickroom_client import play, random_action

MATCH = {"rules": {"hand_limit": 4, "target": 1000, "mercy": None},
         "sandbox": {"seed": 2026, "duplicate": True}}


def result(message: dict) -> None:
    if message.get("type") == "event" and message["event"]["type"] == "duplicate_result":
        for player in message["event"]["players"]:
            print(f"{player['name']}: {player['total']:+} points against the field")


url = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8765/ws"
asyncio.run(play(url, random_action, games=2, create=MATCH, fill_robots=True, on_message=result))
