"""Synthetic training data: deck renders, table scenes, dataset writer."""
