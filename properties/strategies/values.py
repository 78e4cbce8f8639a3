"""Texts and JS values (the spec's vocabulary, "Value"): fixed-width tokens, the marker, and any JS value a processor
or a caller may hand over.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from guardspec.model.values import UNDEFINED, Accessor, BigInt, JsFunction, JsObject, JsSymbol, obj

from .swarms import DEFAULT, MARKER, Swarm

notes = st.integers(0, 39).map(lambda k: f"note-{k:02d}")


def texts(swarm: Swarm = DEFAULT) -> st.SearchStrategy[str]:
    bad = st.integers(0, 9).map(lambda k: f"{MARKER}-{k:02d}")
    if swarm.marker_rate <= 0:
        return notes
    return st.one_of(notes, bad) if swarm.marker_rate >= 0.5 else st.one_of(notes, notes, notes, bad)


_leaves = st.one_of(
    st.just(UNDEFINED),
    st.none(),
    st.booleans(),
    st.integers(-1, 2),
    st.sampled_from([0.5, math.inf]),
    st.builds(BigInt, st.integers(0, 2)),
    notes,
    st.sampled_from([JsFunction("fn-a"), JsFunction("fn-b")]),
    st.sampled_from([JsSymbol("sym-a"), JsSymbol("sym-b")]),
)


def _objects(children: st.SearchStrategy) -> st.SearchStrategy:
    slot = st.one_of(children, st.builds(Accessor, st.sampled_from(["get-a", "get-b"]), notes, st.booleans()))
    return st.builds(
        lambda kv, proto: JsObject(tuple(dict(kv).items()), proto),
        st.lists(st.tuples(st.sampled_from(["a", "b", "text", "note"]), slot), max_size=2),
        st.sampled_from([None, None, "Klass"]),
    )


js_values = st.recursive(_leaves, lambda c: st.one_of(st.lists(c, max_size=2).map(tuple), _objects(c)), max_leaves=4)
"""Any JS value of the vocabulary's "Value": primitives, bigint, arrays, plain objects and class instances with
data or accessor properties (getters that yield or throw), functions and symbols."""

plain_values = st.one_of(notes, st.builds(lambda t: obj(answer=t), notes), st.integers(0, 3))


def data_values(swarm: Swarm) -> st.SearchStrategy:
    return st.one_of(plain_values, js_values) if swarm.weird_values else plain_values


def provider_options(swarm: Swarm = DEFAULT) -> st.SearchStrategy:
    """Provider options across namespaces (G12.5): the two keys
    Breakwater reads (Anthropic citations, OpenRouter reasoning details), options it ignores (a
    known namespace's other key, an unknown namespace), and shapes it refuses as not
    classified (a namespace that is not an object, a refused namespace or key)."""
    t = texts(swarm)
    read = st.one_of(
        st.builds(lambda x: obj(anthropic=obj(citations=(obj(cited_text=x, encrypted_index="opaque"),))), t),
        st.builds(lambda x: obj(openrouter=obj(reasoning_details=(obj(type="reasoning.text", text=x, signature="sig"),))), t),
    )
    ignored = [
        st.builds(lambda x: obj(anthropic=obj(cacheControl=obj(type=x))), t),
        st.builds(lambda x: obj(acme=obj(hint=x)), t),
    ]
    if swarm.option_refusals > 1:  # the campaigns' Breakwater swarms: a key of openrouter's it ignores too
        ignored.append(st.builds(lambda x: obj(openrouter=obj(provider=obj(order=(x,)))), t))
    ignored = st.one_of(*ignored)
    refused = [
        st.builds(lambda x: obj(note=x), t),
        st.builds(lambda x: obj(openaiCompatible=obj(content=x)), t),
        st.builds(lambda x: obj(anthropic=obj(title=x)), t),
        st.builds(lambda x: obj(openrouter=obj(annotations=(x,))), t),
    ]
    if swarm.option_refusals > 1:  # the campaigns' Breakwater swarms: openaiCompatible more often
        refused = [
            st.builds(lambda x: obj(openaiCompatible=obj(content=x)), t),
            st.builds(lambda x: obj(acme=obj(hint=x), openaiCompatible=obj(note=x)), t),
            st.builds(lambda x: obj(anthropic=obj(citations=()), openaiCompatible=obj(reasoning=x)), t),
        ] + refused
    # refused shapes stop the call before anything else is observed: keep them rare (one in ten,
    # ``Swarm.option_refusals`` in ten); then three in ten ignored, the rest read
    r = swarm.option_refusals
    return st.integers(0, 9).flatmap(lambda k: st.one_of(*refused) if k < r else ignored if k < r + 3 else read)
