"""Hostile: prints a gigabyte (the output cap must stop it without holding it all)."""
import sys

line = b"1 " * 500 + b"\n"
for _ in range(1_000_000):
    sys.stdout.buffer.write(line)
