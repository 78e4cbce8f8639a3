"""Parts, messages and system messages of any shape a processor or a caller may write."""

from __future__ import annotations

import base64
from typing import Any

from attrs import evolve
from hypothesis import strategies as st

from guardspec.model.messages import (
    FilePart,
    ImagePart,
    Message,
    ReasoningPart,
    Role,
    SystemMessage,
    TextPart,
    ToolPart,
    ToolState,
)
from guardspec.model.values import UNDEFINED, Accessor, JsObject, obj

from .swarms import ASSET_URLS, DEFAULT, TOOLS, Swarm
from .values import data_values, js_values, notes, provider_options, texts

TOOL_STATES = tuple(ToolState)


@st.composite
def tool_parts(draw, swarm: Swarm = DEFAULT, call_id: str | None = None, state: ToolState | None = None) -> ToolPart:
    """A tool invocation in any state, possibly carrying a cached model output."""
    tools = [t.name for t in TOOLS if swarm.broken_mapping or t.name != "broken"]
    st_ = state or draw(st.sampled_from(TOOL_STATES))
    terminal = st_ in (ToolState.RESULT, ToolState.OUTPUT_ERROR, ToolState.OUTPUT_DENIED, ToolState.APPROVAL_RESPONDED)
    cached = draw(st.booleans()) if st_ is ToolState.RESULT else False
    return ToolPart(
        tool_call_id=call_id or draw(st.sampled_from(["tc1", "tc2", "tc5"])),
        tool_name=draw(st.sampled_from(tools)),
        state=st_,
        args=obj(q=draw(notes)),
        result=obj(answer=draw(texts(swarm))) if st_ is ToolState.RESULT else UNDEFINED,
        error_text=draw(texts(swarm)) if st_ is ToolState.OUTPUT_ERROR else UNDEFINED,
        approval=obj(approved=draw(st.booleans()), reason=draw(texts(swarm))) if terminal and st_ is not ToolState.RESULT else UNDEFINED,
        provider_metadata=obj(mastra=obj(modelOutput=obj(type="text", value=draw(notes)))) if cached else UNDEFINED,
    )


@st.composite
def parts(draw, swarm: Swarm = DEFAULT):
    """A part of any kind (text with or without providerOptions, file, image, reasoning, tool)."""
    # Breakwater's shapes: file parts first (Hypothesis' simplest draws take the first element)
    kinds = ["text", "text", "text", "file", "image", "reasoning", "tool"] + ["file", "image"] * 2 * swarm.asset_urls
    dense = swarm.option_refusals > 1  # the campaigns' Breakwater swarms (the battery's draws as they were)
    kind = draw(st.sampled_from(["file", "text", "file"] + kinds if dense else kinds))
    if kind == "text":
        opts = draw(
            st.sampled_from(
                ["scalar", "null", "opts", UNDEFINED]
                if swarm.weird_values
                else ["opts", UNDEFINED, "opts", "null", "opts"]
                if dense
                else [UNDEFINED, UNDEFINED, "opts"]
            )
        )
        text = draw(texts(swarm)) if not swarm.weird_values or draw(st.integers(0, 9)) else draw(js_values)
        # providerOptions null or not an object: shapes the campaigns' census counts (G12.5)
        note = (lambda: draw(provider_options(swarm))) if swarm.breakwater_shapes else (lambda: obj(note=draw(texts(swarm))))
        given = {"opts": note, "null": lambda: None, "scalar": lambda: draw(st.sampled_from([3, "note-7"]))}
        return TextPart(text, given[opts]() if opts in given else UNDEFINED)
    url = swarm.asset_urls and draw(st.booleans())  # data naming a URL (the input-assets gate)
    if kind == "file" and (url or not swarm.breakwater_shapes):
        return FilePart(draw(st.sampled_from(ASSET_URLS) if url else st.one_of(texts(swarm), data_values(swarm))), "text/plain")
    if kind == "file":
        # text/* data is read as base64 (G12.6): the base64 of a
        # text (the marker included), a token that is not base64, or any other value
        # (not classified, which stops the call before anything else is observed, kept rare)
        encoded = texts(swarm).map(lambda t: base64.b64encode(t.encode()).decode())
        if not dense:
            k = draw(st.integers(0, 11))
            data = draw(st.just("not!base64") if k == 0 else data_values(swarm) if k == 1 else texts(swarm) if k <= 5 else encoded)
            if swarm.foreign_data_uris and k > 5:
                data = f"data:image/png;base64,{data}"  # another media type: sent under the part's (M12.10)
            return FilePart(data, draw(st.sampled_from(["text/plain", "text/plain", "text/markdown"])))
        other = st.one_of(st.integers(0, 3), data_values(swarm))  # not a string
        uri = encoded.map(lambda e: f"data:text/plain;base64,{e}")  # a data URI of base64 text
        # sampled, not st.integers (whose draws lean to the ends of the range); base64 first
        k = draw(st.sampled_from(["base64", "uri", "base64", "bad", "uri", "other", "base64", "text", "other", "other", "uri", "text"]))
        data = draw({"uri": uri, "bad": st.just("not!base64"), "other": other, "text": texts(swarm), "base64": encoded}[k])
        return FilePart(data, draw(st.sampled_from(["text/plain", "text/plain", "text/markdown"])))
    if kind == "image":
        return ImagePart(draw(st.sampled_from(ASSET_URLS) if url else notes), "image/png")
    if kind == "reasoning":
        return ReasoningPart(draw(texts(swarm)))
    return draw(tool_parts(swarm))


@st.composite
def messages(draw, swarm: Swarm = DEFAULT, ids=("n1", "n2", "u0", "a0", "c1"), roles=(Role.USER, Role.ASSISTANT)) -> Message:
    """A message a processor writes: any id of the pool, role, parts; rarely one Mastra cannot
    add (no content, another thread's, a DB-shaped system entry, a weird metadata value)."""
    role = draw(st.sampled_from(roles))
    ps = tuple(draw(st.lists(parts(swarm), min_size=1, max_size=2)))
    m = Message(id=draw(st.sampled_from(ids)), role=role, parts=ps, created_at=draw(st.sampled_from([0, 5, 20])))
    if swarm.weird_values:
        odd = draw(st.integers(0, 14))
        if odd == 0:
            m = evolve(m, parts=None)
        elif odd == 1:
            m = evolve(m, thread_id="t-other")
        elif odd == 2:
            m = evolve(m, role=Role.SYSTEM)
        elif odd == 3:
            m = evolve(m, metadata=draw(js_values))
    if swarm.message_metadata and draw(st.integers(0, 2)) == 0:
        m = evolve(m, metadata=obj(note=draw(notes)))
    return m


@st.composite
def system_messages(draw, swarm: Swarm = DEFAULT) -> SystemMessage:
    """A system message: string or text-part content, provider options holding strings (read
    under G12) or, in weird swarms, accessors, functions, class instances, undefined content;
    with ``Swarm.system_getters``, the accessors of G8 without the rest."""
    kind = draw(st.integers(0, 9 if swarm.weird_values else 6))
    if swarm.weird_values and (draw(st.booleans()) or swarm.odd_system):
        kind = draw(st.sampled_from([7, 8, 9, 10, 11]))
    elif swarm.system_getters and draw(st.integers(0, 4)) == 0:
        kind = draw(st.sampled_from([9, 10, 10, 11, 11]))  # the getters alone, in otherwise tame calls
    text = draw(texts(swarm))
    if kind <= 3:
        content: Any = text
    elif kind <= 5:
        # two text parts; sometimes the marker split across them (the model receives the parts
        # as one text, the policies must read them so: G12.4)
        split = swarm.marker_rate > 0 and draw(st.integers(0, 3)) == 0
        content = (TextPart("FORB"), TextPart(f"IDDEN-{draw(st.integers(0, 9)):02d}")) if split else (TextPart(text), TextPart(draw(notes)))
    elif kind == 6:
        content = (obj(type="text", text=text),)
    elif kind == 7:
        content = UNDEFINED
    elif kind == 8:  # content neither a string nor parts: what a processor may put there (M6)
        content = draw(st.sampled_from([3, obj(note="note-8")]))
    elif kind == 9:
        content = (JsObject((("type", "text"), ("text", Accessor("get-t", text))), None),)
    else:  # the message's own content (10) or provider options (11) an accessor (G8)
        content = Accessor("get-c", text, draw(st.integers(0, 3)) == 0) if kind == 10 else text
    if kind == 11:
        return SystemMessage(content, Accessor("get-o", obj(note=draw(notes))))
    if swarm.breakwater_shapes:
        opts = draw(st.one_of(st.just(UNDEFINED), provider_options(swarm)))
    else:
        opts = draw(st.one_of(st.just(UNDEFINED), st.builds(lambda t: obj(note=t), texts(swarm))))
    if swarm.weird_values and draw(st.integers(0, 4)) == 0:
        opts = draw(js_values)
    # an experimental_providerMetadata key (even null) keeps array content as given (M6 v4 path)
    if swarm.breakwater_shapes:  # null, which Breakwater refuses as not classified, or an object
        meta = draw(st.sampled_from([None, obj(), obj(), UNDEFINED, UNDEFINED])) if isinstance(content, tuple) else UNDEFINED
    else:
        meta = None if isinstance(content, tuple) and draw(st.booleans()) else UNDEFINED
    return SystemMessage(content, opts, meta)


def entries(swarm: Swarm = DEFAULT) -> st.SearchStrategy:
    # besides values that are no entry: a stored-format system entry with neither content nor parts (M2, M8)
    no_content = Message("s0", Role.SYSTEM, None, 5)
    others = st.sampled_from([None, no_content, 3, "note-33"]) if swarm.weird_values else st.nothing()
    if swarm.odd_system:  # the campaign's rare shapes, made often enough for its census
        # sampled (``one_of`` drops a repeated branch): the entry without content two times in five
        return st.sampled_from([messages(swarm), system_messages(swarm), st.just(no_content), st.just(no_content), others]).flatmap(
            lambda s: s
        )
    return st.one_of(messages(swarm), messages(swarm), system_messages(swarm), others)
