"""Leagues: balanced schedules with duplicate deals, parallel jobs, a resumable SQLite store, standings."""
