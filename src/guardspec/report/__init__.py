"""The review report (``guardspec report``): measure in one run, then draw.

``collect`` (the checks' results), ``coverage`` (coverage.py per clause), ``timeline``
(counterexamples as stories), ``chain`` (the stages drawn), ``svg``, ``html``, ``markdown``
(renderers), ``build`` (one run, both processes, files written).
"""
