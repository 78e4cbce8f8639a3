"""M1-M6: Mastra's MessageList as a pure value.

Each operation takes a ``MessageList`` and returns a new one (or raises ``MastraError`` where
Mastra throws). A message's membership in the source sets lives beside it in its ``Slot``;
membership is by object (``Message.ref``), as in Mastra, while the source checker works by id
(M1.2)."""

from __future__ import annotations

from attrs import field, frozen

from guardspec.model.fast import evolve
from guardspec.model.messages import Message, Source, SystemMessage


@frozen
class Slot:
    """M1 Source sets: one message object on the list and the source sets it belongs to."""

    message: Message
    sources: frozenset[Source]


EMPTY: frozenset[Source] = frozenset()


class Refs:
    """M2.10 Shared content: the object identities of one run, drawn from a counter every list
    value of the run shares; a message's ``ref`` and ``content_ref`` tell which objects are one
    and which share a content.

    Identities only tell objects apart; they never reach an observation, so drawing them from
    one counter keeps a run a function of its scenario while sparing the interpreter a new list
    value per allocation."""

    __slots__ = ("n",)

    def __init__(self, start: int = 1) -> None:
        self.n = start

    def take(self) -> int:
        n = self.n
        self.n = n + 1
        return n


@frozen
class MessageList:
    """M1 Source sets: the list, its slots (each message with its sources) in array order, the
    system buckets (M6), and what a run threads through it.

    ``clock`` is the scenario's ``now`` (the stamps of M2.3); ``watermark`` is Mastra's
    createdAt watermark (M2.4); ``refs`` hands out object identities (M2.10). ``detached``
    holds (id, source) of objects that sit in a source set without being on the list: an equal
    copy added under a non-memory source (M2.6) or a message a clear left in its other sets
    (M5.2); only the id-based source checker sees them (M1.2). ``responded`` holds the id of
    every message that has been in the response set during the call, off the list or on it:
    Mastra's persisted response set, which a list rebuilt from the durable loop's workflow
    state holds by id (M1.3).
    """

    slots: tuple[Slot, ...] = ()
    untagged: tuple[SystemMessage, ...] = ()
    tagged: tuple[tuple[str, tuple[SystemMessage, ...]], ...] = ()
    thread_id: str | None = None
    resource_id: str | None = None
    clock: int = 0
    watermark: int | None = None
    detached: tuple[tuple[str, Source], ...] = ()
    responded: frozenset[str] = frozenset()
    refs: Refs = field(factory=Refs, eq=False, repr=False)

    @property
    def next_ref(self) -> int:
        return self.refs.n

    # -- views ---------------------------------------------------------------------------

    def all(self) -> tuple[Message, ...]:
        """``get.all.db()``: every non-system message, in array order."""
        return tuple(s.message for s in self.slots)

    def view(self, source: Source) -> tuple[Message, ...]:
        """``get.remembered/input/response.db()``: the live set, in array order."""
        return tuple(s.message for s in self.slots if source in s.sources)

    def ids(self) -> tuple[str, ...]:
        return tuple(s.message.id for s in self.slots)

    def slot_of(self, message_id: str) -> Slot | None:
        for s in self.slots:
            if s.message.id == message_id:
                return s
        return None

    def holds_object(self, message: Message) -> bool:
        return any(s.message.ref == message.ref and s.message.id == message.id for s in self.slots)

    def system_all(self) -> tuple[SystemMessage, ...]:
        """M6 ``getAllSystemMessages()``: untagged, then each tag in insertion order."""
        out = list(self.untagged)
        for _, bucket in self.tagged:
            out.extend(bucket)
        return tuple(out)

    def fresh(self, message: Message, share: str | None = None) -> tuple[MessageList, Message]:
        """M2.10 Shared content: a new object identity for ``message``: with a new content and new
        part objects (``share`` None, a deep copy); sharing the content, and so its parts, of the
        message it was spread from (``"content"``, ``{...m}``); or with a new content that keeps
        the part objects it carries over (``"parts"``; a part given no identity yet gets one).

        Evidence: M2.10
        """
        take = self.refs.take
        if share == "content" and message.content_ref:
            return self, evolve(message, ref=take())
        keep = share == "parts"
        parts = message.parts
        if parts:
            parts = tuple(p if keep and p.ref else evolve(p, ref=take()) for p in parts)
        return self, evolve(message, ref=take(), content_ref=take(), parts=parts)

    def fresh_system(self, message: SystemMessage) -> tuple[MessageList, SystemMessage]:
        """A new object identity for a system message the list stores as a new object (M6.1)."""
        return self, evolve(message, ref=self.refs.take())
