"""Writes. Every function here is keyword-only, runs in one transaction and records who did it."""
