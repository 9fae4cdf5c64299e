"""A process whose event loop is wedged as Textual's was on a dead terminal, run as
`python -m tests.process.wedged GRACE_S` on a pty by tests/process/test_terminal_gone.py.

It takes the terminal raw (as the panel does), then, inside exit_on_stop_signals, runs an asyncio
loop whose one task blocks in `Queue.put` on a full queue (Textual's writer queue once its writer
thread died): the app's exit, asked for from the loop, can never run. Only the stop rule's hard
exit can end it. It prints `wedged` just before it blocks.
"""

from __future__ import annotations

import asyncio
import queue
import sys
import termios
import tty

from sagan_tui.commands.stop_signals import exit_on_stop_signals


class NeverExits:
    def exit(self, result=None, return_code: int = 0, message=None) -> None:  # never reached: the loop is held
        raise SystemExit(return_code)


async def held() -> None:
    full: queue.Queue[str] = queue.Queue(1)
    full.put("frame")
    print("wedged", flush=True)
    full.put("the next frame")  # blocks the loop's thread for good


def main() -> int:
    grace = float(sys.argv[1])
    with exit_on_stop_signals(NeverExits(), grace_s=grace):
        tty.setraw(sys.stdin.fileno(), termios.TCSANOW)
        asyncio.run(held())
    return 0


if __name__ == "__main__":
    sys.exit(main())
