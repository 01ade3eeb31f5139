"""Hostile: never ends, never prints (the CPU limit or the timeout must stop it)."""
n = 0
while True:
    n += 1
