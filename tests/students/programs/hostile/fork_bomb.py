"""Hostile: forks without end (the process limit and the timeout must contain it)."""
import os

while True:
    try:
        os.fork()
    except OSError:
        pass
