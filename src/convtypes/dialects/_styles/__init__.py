"""The built-in output styles, one module per family syntax.

Each module here whose name does not start with ``_`` is a style of that
name: it defines ``STYLE``, a :class:`~.._output_style.Style`, and nothing
outside it needs to change when one is added. They are imported on first
use (``parse_output(style="hermes")``, ``style_for``), never by ``import
convtypes``.
"""
