"""The servers the course serves: ``python -m minimcp serve --example NAME``."""
