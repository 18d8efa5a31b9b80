"""The course's own scripts: checking exercises, reading the manifest, the conformance suite.

Each is a command, run from a checkout as ``python tools/check.py 03`` (see the README), and a
module the tests import as ``tools.check``, ``tools.course`` and so on. A script that imports
another of them starts by putting the repository root, not ``tools/``, first on ``sys.path``:
``tools`` is then a package, and ``tools/exercises.py`` never passes for a test's ``exercises``.
"""
