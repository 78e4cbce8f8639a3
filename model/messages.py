"""Parts, messages and system messages (the spec's vocabulary: "Part", "Message", "System message").

A message on the list is an object: ``ref`` stands for its identity, so a copy of a message is
the same value under a new ``ref``. Its content is an object too: a shallow copy (``{...m}``)
shares it, and so every part, with the original (``content_ref``), and a copy given a new
content keeps the part objects it did not replace (a part's ``ref``); an in-place write to one
shows in every message that shares the object (M2.10). Mastra's source sets hold objects
(M1, M1.1) and its runner skips a returned object the list already holds (M8); both need identity. ``ref`` takes
no part in equality, fingerprints or JSON.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Union

from attrs import evolve, field, frozen

from .values import UNDEFINED


class Role(str, Enum):
    """A message's role."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


class Source(str, Enum):
    """M1: the sources a non-system message can belong to, in the checker's order."""

    MEMORY = "memory"
    INPUT = "input"
    RESPONSE = "response"
    CONTEXT = "context"


SOURCE_ORDER = (Source.MEMORY, Source.INPUT, Source.RESPONSE, Source.CONTEXT)


class ToolState(str, Enum):
    """A tool part's state; ``TOOL_RANK`` ranks how far a call has got, and the client tool
    outcome states are ``CLIENT_OUTCOME_STATES`` (the spec's vocabulary, "Part")."""

    PARTIAL_CALL = "partial-call"
    CALL = "call"
    APPROVAL_REQUESTED = "approval-requested"
    APPROVAL_RESPONDED = "approval-responded"
    RESULT = "result"
    OUTPUT_ERROR = "output-error"
    OUTPUT_DENIED = "output-denied"


TOOL_RANK = {
    ToolState.PARTIAL_CALL: 0,
    ToolState.CALL: 1,
    ToolState.APPROVAL_REQUESTED: 2,
    ToolState.APPROVAL_RESPONDED: 3,
    ToolState.RESULT: 4,
    ToolState.OUTPUT_ERROR: 4,
    ToolState.OUTPUT_DENIED: 4,
}

CLIENT_OUTCOME_STATES = frozenset({ToolState.APPROVAL_RESPONDED, ToolState.RESULT, ToolState.OUTPUT_ERROR, ToolState.OUTPUT_DENIED})


@frozen
class TextPart:
    """A ``text`` part (with its own providerOptions, which Mastra never sends, M12.5)."""

    text: Any  # a string; anything else is content the policies cannot classify (G12)
    provider_options: Any = UNDEFINED
    created_at: int | None = None  # the part stamp of M2
    ref: int = field(default=0, eq=False, repr=False)  # the part object's identity (M2.10); 0: none shared


@frozen
class ReasoningPart:
    """A ``reasoning`` part (a user message's is never sent, M12.4)."""

    text: str
    created_at: int | None = None
    ref: int = field(default=0, eq=False, repr=False)  # the part object's identity (M2.10); 0: none shared


@frozen
class FilePart:
    """A ``file`` part: data and media type (M12.8 says what the model receives of it)."""

    data: Any
    media_type: str
    created_at: int | None = None
    ref: int = field(default=0, eq=False, repr=False)  # the part object's identity (M2.10); 0: none shared


@frozen
class ImagePart:
    """An ``image`` part, which Mastra stores as a file part (M2.2)."""

    data: Any
    media_type: str
    created_at: int | None = None
    ref: int = field(default=0, eq=False, repr=False)  # the part object's identity (M2.10); 0: none shared


@frozen
class ToolPart:
    """A tool invocation; the cached model output lives at providerMetadata.mastra.modelOutput."""

    tool_call_id: str
    tool_name: str
    state: ToolState
    args: Any = UNDEFINED
    result: Any = UNDEFINED
    error_text: Any = UNDEFINED
    approval: Any = UNDEFINED  # e.g. obj(approved=False, reason="...")
    provider_metadata: Any = UNDEFINED
    created_at: int | None = None
    # The JavaScript key order of Mastra's ``toolInvocation`` object, where it can differ from a
    # literal's (``state, toolCallId, toolName, args, result, errorText, approval``): True when
    # ``approval`` precedes ``errorText``, as Mastra's merge of an approval, error or denial state
    # leaves it (M4). Only a fingerprint sees it (G9.3); equal
    # parts compare equal whatever their key order.
    approval_first: bool = field(default=False, eq=False)
    ref: int = field(default=0, eq=False, repr=False)  # the part object's identity (M2.10); 0: none shared

    @property
    def is_client_outcome(self) -> bool:
        return self.state in CLIENT_OUTCOME_STATES


Part = Union[TextPart, ReasoningPart, FilePart, ImagePart, ToolPart]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)


@frozen
class Message:
    """A non-system message (or a DB-shaped system-role entry a processor returns).

    ``parts`` None means the message has neither content nor parts (M2 refuses it).
    ``metadata`` is where a processor can hang any other value (functions, symbols, ...).
    """

    id: str
    role: Role
    parts: tuple[Part, ...] | None = ()
    created_at: int = 0
    thread_id: str | None = None
    resource_id: str | None = None
    metadata: Any = UNDEFINED
    ref: int = field(default=0, eq=False, repr=False)
    # the identity of the ``content`` object (parts, metadata, the tool-invocation mirror): a
    # shallow copy keeps it (M2.10); 0 for a message never placed
    content_ref: int = field(default=0, eq=False, repr=False)
    # the G9 fingerprint, computed once per value (reference/reading.py); not part of the value
    fp_cache: Any = field(default=None, init=False, eq=False, repr=False)
    # Mastra's legacy ``content.toolInvocations`` mirror: the tool parts a merge (M3, M4)
    # completed with a result, as ``MessageMerger.merge`` lists them; None when the content has
    # none. Not sent, stored or compared; only the G9 fingerprint sees it (reference/reading.py).
    tool_invocations: Any = field(default=None, eq=False, repr=False)

    def text(self) -> str:
        return "".join(p.text for p in self.parts or () if isinstance(p, TextPart) and isinstance(p.text, str))

    def with_ref(self, ref: int) -> Message:
        return evolve(self, ref=ref)


@frozen
class SystemMessage:
    """A system message as Mastra's buckets hold it (an AI SDK core system message).

    ``content`` is a string, or a tuple of text-part objects; anything else is what a
    processor may have put there. ``stored``: a stored-format (``format: 2``) system message
    kept as it is (``replaceAllSystemMessages`` does not convert): its content is
    ``{format: 2, parts}`` and ``content`` holds those parts (M6.6);
    ``metadata``: such an entry's ``content.metadata`` (its message's metadata, M6.6, M6.7).
    """

    content: Any
    provider_options: Any = UNDEFINED
    experimental_provider_metadata: Any = UNDEFINED
    stored: bool = False
    metadata: Any = UNDEFINED
    ref: int = field(default=0, eq=False, repr=False)
    fp_cache: Any = field(default=None, init=False, eq=False, repr=False)


def user(id: str, text: str, created_at: int = 0, **kw: Any) -> Message:
    return Message(id=id, role=Role.USER, parts=(TextPart(text),), created_at=created_at, **kw)


def assistant(id: str, *parts: Part | str, created_at: int = 0, **kw: Any) -> Message:
    ps = tuple(TextPart(p) if isinstance(p, str) else p for p in parts)
    return Message(id=id, role=Role.ASSISTANT, parts=ps, created_at=created_at, **kw)
