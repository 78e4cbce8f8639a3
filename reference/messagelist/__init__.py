"""M1-M6: Mastra's MessageList as a pure value.

Each operation takes a ``MessageList`` and returns a new one (or raises ``MastraError`` where
Mastra throws). A message's membership in the source sets lives beside it in its ``Slot``;
membership is by object (``Message.ref``), as in Mastra, while the source checker works by id
(M1.2).

The modules follow the clauses: ``value`` (the list and its views), ``parts`` (the parts the
substrate adds, cache keys, the stored format), ``sources`` (M1), ``add`` (M2), ``fold`` (M3),
``merge`` (M4), ``removal`` (M5), ``system`` (M6). This package holds the operations the rest
of the interpreter calls (``ml.add_one``, ``ml.checker``, ...).
"""

from guardspec.model.errors import MastraError
from guardspec.model.messages import FilePart, ImagePart, Source

from .add import add, add_one, replace_message, shared
from .merge import merge_parts
from .parts import (
    ERROR_PART,
    STEP_START,
    ErrorPart,
    StepStartPart,
    as_db_message,
    cache_key,
    part_key,
    visible_parts,
    without_steps,
)
from .removal import clear_source, drain_unsaved, remove_by_ids
from .sources import checked_sources, checker, push_source, source_ids, sources_by_id
from .system import add_system, replace_all_system, replace_reading_roles, set_system, system_text
from .value import EMPTY, MessageList, Refs, Slot

__all__ = [
    "EMPTY",
    "ERROR_PART",
    "STEP_START",
    "ErrorPart",
    "FilePart",
    "ImagePart",
    "MastraError",
    "MessageList",
    "Refs",
    "Slot",
    "Source",
    "StepStartPart",
    "add",
    "add_one",
    "add_system",
    "as_db_message",
    "cache_key",
    "checked_sources",
    "checker",
    "clear_source",
    "drain_unsaved",
    "merge_parts",
    "part_key",
    "push_source",
    "remove_by_ids",
    "replace_all_system",
    "replace_message",
    "replace_reading_roles",
    "set_system",
    "shared",
    "source_ids",
    "sources_by_id",
    "system_text",
    "visible_parts",
    "without_steps",
]
