"""The course's benchmark: what each cable costs, minimcp beside the official SDK.

``python bench/bench.py`` runs it; its docstring says what is measured, and how.
"""
