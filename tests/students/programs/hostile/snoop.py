"""Hostile: looks around: the parent folder, other files, the environment, then prints it all
instead of tables."""
import os

print("environment:", dict(os.environ))
for place in ("..", "../..", "/", "/home", "/root", "/etc"):
    try:
        print(place, sorted(os.listdir(place))[:50])
    except OSError as exc:
        print(place, "unreadable:", exc)
for name in ("/etc/passwd", "/etc/hostname"):
    try:
        print(name, open(name).read()[:200])
    except OSError as exc:
        print(name, "unreadable:", exc)
