"""Hostile: opens a socket to send its work out (there must be no network)."""
import socket
import sys

try:
    socket.create_connection(("1.1.1.1", 80), timeout=5).close()
    print("connected")
except OSError as exc:
    print("no network:", exc, file=sys.stderr)
    sys.exit(3)
