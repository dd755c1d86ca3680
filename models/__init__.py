"""Shipped ONNX models, their model cards and the training code."""
