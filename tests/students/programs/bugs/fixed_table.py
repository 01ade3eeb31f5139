"""BUG (fabricated output): prints the same 10x10 tables whatever it is given (the tables one
run printed at the assigned settings, pasted into the program)."""

SIZE = 10
print("Best number of dice:")
for x in range(SIZE):
    print(" ".join("2" if (x + y) % 3 else "1" for y in range(SIZE)))
print()
print("Probability of winning:")
for x in range(SIZE):
    print(" ".join(f"{0.3 + 0.05 * ((x * 7 + y * 3) % 9):.4f}" for y in range(SIZE)))
