"""Ratings for league results: batch Elo fit, sequential Elo and renderers."""

from harness.ratings.fit import fit_elo
from harness.ratings.model import BotRating, EloFit, GameResult, SeatAdvantage
from harness.ratings.render import render_csv, render_json, render_table
from harness.ratings.sequential import sequential_elo

__all__ = [
    "BotRating",
    "EloFit",
    "GameResult",
    "SeatAdvantage",
    "fit_elo",
    "render_csv",
    "render_json",
    "render_table",
    "sequential_elo",
]
