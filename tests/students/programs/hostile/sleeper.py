"""Hostile: sleeps far past any timeout, printing nothing."""
import time

time.sleep(3600)
