"""A real SMTP server (aiosmtpd) for the tests: accepts every message on loopback and
writes each one, decoded, as JSON into a folder. Prints "ready <port>" once listening.

Usage: python smtp_sink.py <folder>
"""

import email
import email.policy
import json
import pathlib
import signal
import socket
import sys
import threading
import time

from aiosmtpd.controller import Controller


class Keep:
    def __init__(self, folder: pathlib.Path):
        self.folder = folder
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        parts = {"text/plain": "", "text/html": ""}
        for part in message.walk():
            if part.get_content_type() in parts:
                parts[part.get_content_type()] = part.get_content()
        self.count += 1
        record = {
            "from": envelope.mail_from,
            "to": envelope.rcpt_tos,
            "subject": str(message["subject"]),
            "text": parts["text/plain"],
            "html": parts["text/html"],
        }
        path = self.folder / f"{time.time_ns()}-{self.count}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record))
        tmp.rename(path)
        return "250 Message accepted for delivery"


def main() -> None:
    folder = pathlib.Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    # aiosmtpd checks readiness by connecting to its own port, so it needs a real one.
    for _ in range(20):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        controller = Controller(Keep(folder), hostname="127.0.0.1", port=port)
        try:
            controller.start()
            break
        except OSError:
            continue
    else:
        sys.exit("no free port for the SMTP sink")
    print(f"ready {port}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    # The parent closing our stdin also means stop, so no sink outlives its test.
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
