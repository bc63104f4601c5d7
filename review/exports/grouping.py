"""Leak-free groups: items that share a task, an observation or a media file must land in the
same split, so they are joined into one group (connected components of a union-find over the
keys each item touches).

Keys are content-based, not database ids, so the same data groups (and therefore splits) the
same way in another installation:
- ``task:<content hash>`` — records with identical task identity (a pair's context, a PCA
  question on an image, a web task) share one Task row;
- ``web:<start_url>\\n<instruction>`` — the same web task at another difficulty or website label;
- ``media:<path>`` — every image/video an item shows: task media (a PCA image, trace inputs),
  media attached to messages and observation screenshots.
"""

from __future__ import annotations

import json
import posixpath
import re
from array import array
from collections.abc import Iterable, Iterator

from .rows import Row


def message_media(messages: Iterable[dict] | None) -> Iterator[str]:
    for message in messages or ():
        if not isinstance(message, dict):
            continue
        yield from message.get("media") or ()
        observation = message.get("observation")
        if isinstance(observation, dict):
            for key in ("screenshot", "screenshot_after"):
                if observation.get(key):
                    yield observation[key]


def media_key(path: str) -> str:
    return "media:" + posixpath.normpath(str(path))


_MAY_NAME_MEDIA = re.compile(r'"(?:media|screenshot(?:_after)?)"')


def _text_media(text: str | None) -> Iterator[str]:
    # Messages are JSON text here; most name no media, so only those that might are decoded.
    if text and _MAY_NAME_MEDIA.search(text):
        yield from message_media(json.loads(text))


def item_keys(row: Row) -> list[str]:
    """Every group key of one item (its export row)."""
    keys: list[str] = []
    if row.task_id is not None:
        keys.append("task:" + row.task_hash)
        if row.start_url:
            keys.append(f"web:{row.start_url}\n{row.instruction}")
        keys.extend(media_key(p) for p in row.task_media or ())
        keys.extend(media_key(p) for p in _text_media(row.context_text))
    for text in (row.first_text, row.second_text):
        keys.extend(media_key(p) for p in _text_media(text))
    instance = row.payload.get("instance") if row.kind == "pca" else None
    if isinstance(instance, dict) and instance.get("image"):
        keys.append(media_key(instance["image"]))
    if not keys:
        keys.append("item:" + row.external_id)
    return keys


class Groups:
    """Union-find over string keys. `add(keys)` records one item and returns its index; after
    all items, `group_of(i)` is the item's group and `group_key(g)` the smallest key in it (the
    group's stable name, which the split hash uses)."""

    def __init__(self) -> None:
        self.node_of: dict[str, int] = {}
        self.parent = array("q")
        self.smallest: list[str] = []  # per root: the smallest key of its component
        self.item_node = array("q")

    def _node(self, key: str) -> int:
        node = self.node_of.get(key)
        if node is None:
            node = len(self.parent)
            self.node_of[key] = node
            self.parent.append(node)
            self.smallest.append(key)
        return node

    def find(self, node: int) -> int:
        parent = self.parent
        root = node
        while parent[root] != root:
            root = parent[root]
        while parent[node] != root:  # path compression
            parent[node], node = root, parent[node]
        return root

    def union(self, a: int, b: int) -> int:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        if ra > rb:
            ra, rb = rb, ra
        self.parent[rb] = ra
        if self.smallest[rb] < self.smallest[ra]:
            self.smallest[ra] = self.smallest[rb]
        return ra

    def add(self, keys: list[str]) -> int:
        first = self._node(keys[0])
        for key in keys[1:]:
            self.union(first, self._node(key))
        self.item_node.append(first)
        return len(self.item_node) - 1

    def __len__(self) -> int:
        return len(self.item_node)

    def finish(self) -> tuple[array, list[str]]:
        """(group index per item, group key per group), groups numbered in order of first
        appearance."""
        index_of_root: dict[int, int] = {}
        keys: list[str] = []
        item_group = array("q")
        for node in self.item_node:
            root = self.find(node)
            group = index_of_root.get(root)
            if group is None:
                group = index_of_root[root] = len(keys)
                keys.append(self.smallest[root])
            item_group.append(group)
        return item_group, keys
