"""Recognizer: frames in, card detections and table observations out."""
