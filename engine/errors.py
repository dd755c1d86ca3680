"""Errors shared by every game's engine."""

from __future__ import annotations


class ProfileError(ValueError):
    """A rule profile (or an override of one) that cannot be judged by: the message names the
    file, or ``options``, and the key, in one sentence."""
