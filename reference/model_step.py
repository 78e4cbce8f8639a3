"""M12 Model step with a scripted model."""

from __future__ import annotations

from guardspec.model.fast import evolve

from guardspec.model.messages import Message, Role, Source, TextPart, ToolPart
from guardspec.model.observation import PromptEntry

from . import messagelist as ml
from .messagelist import MessageList
from .reading import cached_output
from guardspec.model.values import UNDEFINED

REPLY_ID = "reply-1"


def _substituted(m: Message) -> Message:
    if not any(isinstance(p, ToolPart) and cached_output(p) is not UNDEFINED for p in m.parts or ()):
        return evolve(m, ref=0)
    parts = tuple(
        evolve(p, result=cached_output(p)) if isinstance(p, ToolPart) and cached_output(p) is not UNDEFINED else p
        for p in m.parts or ()
    )
    return evolve(m, parts=parts, ref=0)


def prompt(lst: MessageList) -> tuple[PromptEntry, ...]:
    """M12: all system messages (M6 order), then every non-system message in list (createdAt)
    order, a cached tool output substituted wherever one is found, on any message (M11)."""
    return tuple(evolve(s, ref=0) for s in lst.system_all()) + tuple(_substituted(m) for m in lst.all())


def model_step(lst: MessageList, reply: str) -> tuple[MessageList, tuple[PromptEntry, ...]]:
    """M12 Model step: the model receives the prompt and its reply is added as an assistant
    ``response`` message (M4 may merge it into a trailing assistant message, which then moves
    to response)."""
    sent = prompt(lst)
    msg = Message(id=REPLY_ID, role=Role.ASSISTANT, parts=(TextPart(reply),), created_at=lst.clock)
    return ml.add_one(lst, msg, Source.RESPONSE), sent
