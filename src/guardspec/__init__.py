"""guardspec: an executable formal model of the guarded input processor contract."""

__version__ = "0.1.0"
