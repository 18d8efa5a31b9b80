"""Servers used by the tests (run as child processes)."""
