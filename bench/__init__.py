"""The course's benchmark: what each cable costs, minimcp beside the official SDK (see bench/bench.py)."""
