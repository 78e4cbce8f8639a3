"""M12 Model step with a scripted model: the reply added as a response message, the error
response of a failed step, and what generate and stream do to the list after the reply."""

from __future__ import annotations

from typing import Any

from guardspec.model.fast import evolve
from guardspec.model.messages import Message, Role, Source, TextPart
from guardspec.model.observation import PromptEntry
from guardspec.model.values import UNDEFINED, Accessor, JsObject

from . import messagelist as ml
from .downloads import received
from .messagelist import MessageList
from .messagelist.add import _stamp
from .prompt import prompt

REPLY_ID = "reply-1"


def error_message(lst: MessageList) -> Message:
    """M12.10: the response message Mastra adds when the model step fails: one ``error`` part,
    which the protocol reports as a part kind the model has no word for (the text
    ``<mastra part error>``, docs/protocol.md "Representation"). It carries the clock's date,
    which it keeps (M2.4): not moved past the createdAt watermark, it sorts after the messages
    of an equal stamp and before later ones."""
    return Message(id=REPLY_ID, role=Role.ASSISTANT, parts=(ml.ERROR_PART,), created_at=lst.clock)


def response_date(lst: MessageList) -> int:
    """M12.12 The reply: a response message Mastra makes is dated by the list like a string input: the
    clock, or one past the createdAt watermark when that is not behind it (measured: two
    string inputs dated ``now`` and ``now + 1`` come before the reply)."""
    return lst.clock if lst.watermark is None or lst.clock > lst.watermark else lst.watermark + 1


def model_step(lst: MessageList, reply: str) -> tuple[MessageList, tuple[PromptEntry, ...]]:
    """M12 Model step: the model receives the prompt and its reply is added as an assistant
    ``response`` message (M4 may merge it into a trailing assistant message, which then moves
    to response)."""
    sent = tuple(received(e) for e in prompt(lst))
    msg = Message(id=REPLY_ID, role=Role.ASSISTANT, parts=(TextPart(reply),), created_at=response_date(lst))
    out = ml.add_one(lst, msg, Source.RESPONSE)
    if lst.slots and out.slot_of(REPLY_ID) is None:  # merged into the trailing assistant message
        ref = lst.slots[-1].message.ref
        target = next((s.message for s in out.slots if s.message.ref == ref), None)
        if target is not None and target.metadata is not UNDEFINED:
            out = ml.replace_message(out, evolve(target, metadata=spread_metadata(target.metadata)))
    return out, sent


def spread_metadata(v: Any) -> Any:
    """M4 Assistant merge of the reply: Mastra's reply
    carries the answering model in its ``metadata`` (an object, which the normalisation drops),
    so merging it into the trailing assistant message writes that message's metadata as
    ``{...metadata, ...reply's}``: an object's own properties (a getter read, a class instance
    made plain), a string's characters and an array's elements by index; ``null``, a number,
    a boolean, a bigint, a symbol or a function spread nothing, and metadata left empty is none
    (the adapter reports ``{}`` as none). A throwing getter never gets here: the prompt
    conversion throws at it first (``_spread_prompt_metadata``)."""
    if v is UNDEFINED:
        return v
    out = JsObject()
    if isinstance(v, JsObject):
        for k, x in v.props:
            out = out.set(k, x.value if isinstance(x, Accessor) and not x.throws else x)
    elif isinstance(v, (str, tuple)):
        for i, x in enumerate(v):
            out = out.set(str(i), x)
    return out if out.props else UNDEFINED


def stamp_merged_reply(before: MessageList, lst: MessageList) -> MessageList:
    """M12.14 A merged reply is stamped after saving: After saving: when the reply merged into the trailing assistant message, Mastra's
    response handling stamps every part of that message (the stored copy keeps the parts as
    they were saved)."""
    if not before.slots or lst.slot_of(REPLY_ID) is not None:
        return lst
    ref = before.slots[-1].message.ref
    target = next((s.message for s in lst.slots if s.message.ref == ref), None)
    if target is None:
        return lst
    return ml.replace_message(lst, _stamp(target, lst.clock))


def readd_earlier_responses(before: MessageList, lst: MessageList) -> MessageList:
    """M12.13 Earlier responses are added again: ``generate()`` and ``stream()`` (measured on
    both): after the reply, the response messages that were on the list before the
    model step are added again as ``response`` (merge on), so an earlier response message's
    parts merge into the reply message when that is the latest assistant message (measured:
    reply parts ``["reply-0", "added"]`` on both loops, with and without memory)."""
    refs = [s.message.ref for s in before.slots if Source.RESPONSE in s.sources]
    for ref in refs:
        m = next((s.message for s in lst.slots if s.message.ref == ref), None)
        if m is not None:
            lst = ml.add_one(lst, m, Source.RESPONSE)
    return lst
