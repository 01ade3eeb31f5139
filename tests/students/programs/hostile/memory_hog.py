"""Hostile: grabs memory without end (the address-space limit must stop it)."""
hoard = []
while True:
    hoard.append(bytearray(64 << 20))
