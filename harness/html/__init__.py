"""Self-contained HTML pages: the replay viewer (viewer.py) and the league report (report.py)."""
