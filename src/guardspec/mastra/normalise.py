"""The ONE place where observations are normalised before the model and real Mastra are
compared (docs/protocol.md "Normalisation"). Both sides pass through the same functions.

Only what Mastra chooses by itself is normalised, never what the semantics decide:

1. **Generated ids.** An id that appears nowhere in the input (scenario or op sequence) was
   made up by the implementation (Mastra: UUIDs / ``gen-N``; the model: ``msg-N``,
   ``reply-1``). Each becomes ``$id1``, ``$id2``, ... in order of first appearance in a fixed
   walk of the observation, so two observations agree when they generate ids at the same
   places.
2. **Message timestamps chosen by the implementation.** The ``createdAt`` of a message with a
   generated id (Mastra: the wall clock; the model: the scenario's ``now``) becomes
   ``"$now"``.
3. **Part stamps.** A part ``createdAt`` that is not one the input gave becomes ``"$stamp"``
   (Mastra stamps parts with ``Date.now()``; the model with ``now``). Whether a part is
   stamped is kept. The scenario's ``now`` is the model's stamp, so an input stamp equal to it
   cannot be told from one the model chose: a part stamp equal to ``now`` becomes ``"$stamp"``
   on both sides too.
4. **Prompts.** The model receives no message ids, dates or part stamps: in prompt entries
   ``id`` becomes ``""``, ``createdAt`` ``0``, part ``createdAt`` is dropped, and Mastra's
   ``providerOptions.mastra.createdAt`` part stamp is dropped (an emptied ``mastra`` /
   ``providerOptions`` key with it). A part's ``providerMetadata`` is storage-side and never
   sent to a language model: it is dropped from prompt parts.
5. **Response metadata.** Mastra records the answering model on a response message
   (``content.metadata.modelId`` / ``.provider``): those two keys are dropped (an emptied
   ``metadata`` with them). A ``metadata`` that is (or is left) ``{}`` counts as none on both
   sides (docs/protocol.md: the adapter reports ``content.metadata`` ``{}`` as none), as does a
   kept stored-format system entry's ``content.metadata`` ``{}``.

Anything else (sources, order, parts, texts, states, titles, outcomes) is compared as is.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

GEN_ID = "$id"
NOW = "$now"
STAMP = "$stamp"


def input_ids(data: Any) -> set[str]:
    """Every id the input names: ``id``/``newId``/``ids`` values and ``$ref`` targets."""
    out: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("id", "newId", "$ref", "toolCallId") and isinstance(x, str):
                    out.add(x)
                elif k == "ids" and isinstance(x, list):
                    out.update(i for i in x if isinstance(i, str))
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(data)
    return out


def input_part_stamps(data: Any) -> set[int]:
    """Every part ``createdAt`` the input gives (parts are dicts with a ``type``)."""
    out: set[int] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            if "type" in v and isinstance(v.get("createdAt"), int):
                out.add(v["createdAt"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(data)
    return out


class IdMap:
    """Renames the ids an implementation chose to ``<GEN_ID><n>`` in order of appearance; the
    ``known`` ids (those the scenario gave) and ``""`` are kept as they are."""

    def __init__(self, known: set[str]) -> None:
        self.known = known
        self.names: dict[str, str] = {}

    def __call__(self, i: Any) -> Any:
        if not isinstance(i, str) or i in self.known or i == "":
            return i
        if i not in self.names:
            self.names[i] = f"{GEN_ID}{len(self.names) + 1}"
        return self.names[i]

    def generated(self, i: Any) -> bool:
        return isinstance(i, str) and i != "" and i not in self.known


def _parts(parts: Any, stamps: set[int], prompt: bool = False) -> Any:
    if not isinstance(parts, list):
        return parts
    out = []
    for p in parts:
        if not isinstance(p, dict):
            out.append(p)
            continue
        p = dict(p)
        if "createdAt" in p:
            if prompt:
                del p["createdAt"]
            elif p["createdAt"] not in stamps:
                p["createdAt"] = STAMP
        if prompt:
            p.pop("providerMetadata", None)
        if prompt and isinstance(p.get("providerOptions"), dict):
            po = dict(p["providerOptions"])
            m = po.get("mastra")
            if isinstance(m, dict) and "createdAt" in m:
                m = {k: v for k, v in m.items() if k != "createdAt"}
                if m:
                    po["mastra"] = m
                else:
                    del po["mastra"]
            if po:
                p["providerOptions"] = po
            else:
                del p["providerOptions"]
        out.append(p)
    return out


def _message(m: Any, ids: IdMap, stamps: set[int]) -> Any:
    if not isinstance(m, dict):
        return m
    m = dict(m)
    gen = ids.generated(m.get("id"))
    if "id" in m:
        m["id"] = ids(m["id"])
    if gen and "createdAt" in m:
        m["createdAt"] = NOW
    md = m.get("metadata")
    if isinstance(md, dict):
        md = {k: v for k, v in md.items() if k not in ("modelId", "provider")}
        if md:
            m["metadata"] = md
        else:
            del m["metadata"]
    if "parts" in m:
        m["parts"] = _parts(m["parts"], stamps)
    return m


def _prompt_entry(e: Any) -> Any:
    if not isinstance(e, dict) or (e.get("role") == "system" and "parts" not in e):
        return e
    e = dict(e)
    e["id"] = ""
    e["createdAt"] = 0
    e.pop("threadId", None)
    e.pop("resourceId", None)
    e["parts"] = _parts(e.get("parts"), set(), prompt=True)
    return e


def normalise_observation(obs: dict, inputs: Any) -> dict:
    """An observation JSON (observation.schema.json), normalised against its scenario JSON."""
    obs = copy.deepcopy(obs)
    ids = IdMap(input_ids(inputs))
    stamps = input_part_stamps(inputs)
    call = inputs.get("call") if isinstance(inputs, dict) else None
    if isinstance(call, dict):
        stamps.discard(call.get("now"))
    # fixed walk order: result, list, stored, then the rest
    res = obs.get("result")
    if isinstance(res, dict):
        res["messages"] = [ids(i) for i in res.get("messages", [])]
        res["rememberedMessages"] = [ids(i) for i in res.get("rememberedMessages", [])]
    lst = obs.get("list")
    if isinstance(lst, dict):
        for lm in lst.get("messages", []):
            lm["message"] = _message(lm["message"], ids, stamps)
        for s in [*lst.get("untagged", []), *(s for _, bucket in lst.get("tagged", []) for s in bucket)]:
            if isinstance(s.get("content"), list):
                s["content"] = _parts(s["content"], stamps)
            elif isinstance(s.get("content"), dict) and s["content"].get("metadata") == {}:
                s["content"] = {k: v for k, v in s["content"].items() if k != "metadata"}
    if isinstance(obs.get("stored"), list):
        obs["stored"] = [_message(m, ids, stamps) for m in obs["stored"]]
    if isinstance(obs.get("prompts"), list):
        obs["prompts"] = [[_prompt_entry(e) for e in step] for step in obs["prompts"]]
    return obs


def normalise_ops_state(state: dict, inputs: Any) -> dict:
    """The ``state`` of an ``ops`` reply (docs/protocol-mastra-ops.md), normalised: generated
    ids renamed; a generated-id message's createdAt is kept (the ops clock makes it
    deterministic on both sides)."""
    state = copy.deepcopy(state)
    ids = IdMap(input_ids(inputs))
    for m in state.get("messages", []):
        m["id"] = ids(m["id"])
    for key in ("sources", "detached"):
        for src, lst in state.get(key, {}).items():
            state[key][src] = [ids(i) for i in lst]
    return state


def rename_ids(values: Iterable[Any], inputs: Any) -> list[Any]:
    ids = IdMap(input_ids(inputs))
    return [ids(v) if isinstance(v, str) else v for v in values]


__all__ = ["input_ids", "input_part_stamps", "normalise_observation", "normalise_ops_state", "rename_ids"]
