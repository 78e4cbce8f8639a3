"""The processor language: what an application input processor in a scenario does.

SPEC "What a processor in a scenario must be able to do". A processor is a straight-line
script: ``steps`` mutate the list in place, in order, then ``end`` says how ``processInput``
finishes: by returning a value built from what it received, by ``abort(reason)``, by throwing a
TripWire or an error, by aborting then throwing, or by returning abort's result under a
``finally`` that throws.

Entries a processor writes (``Entry``) are messages (``Message``, including DB-shaped
system-role ones), AI SDK system messages (``SystemMessage``), or any other value (null, a
number, ...): what Mastra cannot add is part of what the language must express (G7).
"""

from __future__ import annotations

from typing import Any, Union

from attrs import frozen

from .messages import Message, Role, Source, SystemMessage
from .values import UNDEFINED

Entry = Union[Message, SystemMessage, Any]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)


@frozen
class Missing:
    """An object key that is absent (``{messages}`` without ``systemMessages``, say)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = Missing()


# -- steps: in-place work on the list ---------------------------------------------------------


@frozen
class AddMessages:
    """``messageList.add(entries, source, {merge})``; ``merge`` None = option not given."""

    entries: tuple[Entry, ...]
    source: Source = Source.INPUT
    merge: bool | None = None


@frozen
class RemoveByIds:
    ids: tuple[str, ...]


@frozen
class AddSystem:
    """``messageList.addSystem(message, tag)``."""

    message: SystemMessage | str
    tag: str | None = None


@frozen
class ReplaceAllSystem:
    """``messageList.replaceAllSystemMessages(entries)``."""

    entries: tuple[Entry, ...]


@frozen
class ClearInput:
    """``messageList.clear.input.db()``: drop every input message."""


@frozen
class EditSystem:
    """Assign ``field`` of the ``index``-th system message of a bucket, in place.

    ``field`` is ``content``, ``providerOptions`` or ``experimental_providerMetadata``.
    """

    index: int
    field: str
    value: Any
    tag: str | None = None


@frozen
class EditMessage:
    """Set the text of a message's first text part in place (one is appended if none)."""

    id: str
    text: Any


Step = Union[AddMessages, RemoveByIds, AddSystem, ReplaceAllSystem, ClearInput, EditSystem, EditMessage]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)


# -- return values -----------------------------------------------------------------------------


@frozen
class EditText:
    """In a returned array: a new object for message ``id`` whose first text part reads ``text``."""

    id: str
    text: Any


@frozen
class SetRole:
    id: str
    role: Role


@frozen
class SetId:
    id: str
    new_id: str


Edit = Union[EditText, SetRole, SetId]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)


@frozen
class ArrayOf:
    """An array built from what the processor received.

    ``base``: ``received`` (the ``messages`` argument), ``list`` (``messageList.get.all.db()``
    now) or ``empty``. ``copy``: ``none`` keeps the very objects, ``shallow`` and ``deep`` make
    new objects (parts are immutable values here, so the two differ only in name). ``drop``
    filters ids out, ``edits`` make new objects for the entries they touch, ``append`` adds
    entries at the end.
    """

    base: str = "received"
    copy: str = "none"
    drop: tuple[str, ...] = ()
    edits: tuple[Edit, ...] = ()
    append: tuple[Entry, ...] = ()


@frozen
class ObjectOf:
    """``{messages, systemMessages}`` of any prototype, either key possibly missing.

    ``system_messages`` is ``"received"`` (the ``systemMessages`` argument), a tuple of entries,
    ``MISSING``, or any other value.
    """

    messages: Any = ArrayOf()
    system_messages: Any = "received"
    proto: str | None = None


@frozen
class SameList:
    """Return the message list it was given."""


@frozen
class OtherList:
    """Return a different MessageList."""


@frozen
class Primitive:
    """Return a primitive: undefined, null, a boolean, a number or a string."""

    value: Any = UNDEFINED


ReturnValue = Union[ArrayOf, ObjectOf, SameList, OtherList, Primitive]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)


# -- endings ------------------------------------------------------------------------------------


@frozen
class Return:
    value: ReturnValue = Primitive()


@frozen
class Abort:
    """``abort(reason)``."""

    reason: str


@frozen
class ThrowTripWire:
    """``throw new TripWire(reason)``."""

    reason: str


@frozen
class Throw:
    """``throw new Error(message)``."""

    message: str


@frozen
class AbortThenThrow:
    """``try { abort(reason) } catch { throw new Error(message) }``."""

    reason: str
    message: str


@frozen
class AbortWrapThrow:
    """``try { abort(reason) } catch (e) { throw new Error(message, { cause: e }) }``: a throw
    wrapping the processor's own abort is still a throw (G6)."""

    reason: str
    message: str


@frozen
class AbortFinallyThrow:
    """``try { return abort(reason) } finally { throw new Error(message) }``."""

    reason: str
    message: str


End = Union[Return, Abort, ThrowTripWire, Throw, AbortThenThrow, AbortWrapThrow, AbortFinallyThrow]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)

PROCESS_INPUT = "processInput"
FORBIDDEN_HOOKS = (
    "processInputStep",
    "computeStateSignal",
    "processLLMRequest",
    "processLLMResponse",
    "processOutputStream",
    "processOutputResult",
    "processOutputStep",
    "processAPIError",
    "processToolResult",
)
RESERVED_IDS = (
    "breakwater-rbac",
    "breakwater-input-assets",
    "breakwater-client-tool-output",
    "breakwater-policy-engine",
)


@frozen
class Processor:
    """An application input processor: its id, the hooks it implements, its script."""

    id: str
    steps: tuple[Step, ...] = ()
    end: End = Return()
    hooks: tuple[str, ...] = (PROCESS_INPUT,)
