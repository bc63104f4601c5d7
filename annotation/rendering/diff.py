"""Word-level differences between the two candidates of a minimal-edit pair.

Highlighting only helps when A and B share most of their text (one was edited from the
other); for unrelated rollouts every word would light up, so nothing is marked there.
The markup is assembled from escaped tokens only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from .messages import MessageView

SIMILARITY_THRESHOLD = 0.6
# Past this many words on the two sides together the diff would cost more than it helps.
MAX_WORDS = 80_000
# Share of each side's messages that must have a partner on the other side.
MIN_ALIGNED = 0.5
_WORD = re.compile(r"(\S+)(\s*)")
_LEAD = re.compile(r"\s*")


@dataclass(frozen=True, slots=True)
class Words:
    lead: str
    words: list[str]
    spaces: list[str]  # the whitespace after each word, kept so each side renders as written


def split_words(text: str) -> Words:
    lead = _LEAD.match(text).group()
    pairs = _WORD.findall(text, len(lead))
    return Words(lead, [w for w, _ in pairs], [s for _, s in pairs])


def _render(w: Words, spans: list[tuple[int, int, bool]], tag: str) -> SafeString:
    out = [escape(w.lead)]
    for i1, i2, changed in spans:
        if i1 >= i2:
            continue
        if changed:
            inner = "".join(w.words[k] + w.spaces[k] for k in range(i1, i2 - 1)) + w.words[i2 - 1]
            out.append(f"<{tag}>{escape(inner)}</{tag}>{escape(w.spaces[i2 - 1])}")
        else:
            out.append(escape("".join(w.words[k] + w.spaces[k] for k in range(i1, i2))))
    # Every piece above went through escape(); the only markup added is <ins>/<del>.
    return mark_safe("".join(out))  # noqa: S308


@dataclass(frozen=True, slots=True)
class WordDiff:
    a: SafeString  # A's text, words missing from B in <del>
    b: SafeString  # B's text, words missing from A in <ins>
    matched: int
    size_a: int
    size_b: int

    @property
    def ratio(self) -> float:
        total = self.size_a + self.size_b
        return 2 * self.matched / total if total else 1.0


def word_diff(a: str, b: str) -> WordDiff:
    wa, wb = split_words(a), split_words(b)
    matcher = SequenceMatcher(None, wa.words, wb.words)
    spans_a: list[tuple[int, int, bool]] = []
    spans_b: list[tuple[int, int, bool]] = []
    matched = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        same = tag == "equal"
        matched += (i2 - i1) if same else 0
        spans_a.append((i1, i2, not same))
        spans_b.append((j1, j2, not same))
    return WordDiff(
        _render(wa, spans_a, "del"), _render(wb, spans_b, "ins"), matched, len(wa.words), len(wb.words)
    )


def _key(m: MessageView) -> tuple:
    return (m.role, tuple(call.name for call in m.tool_calls))


def _exact(m: MessageView) -> tuple:
    return (_key(m), _shown(m), tuple(call.arguments for call in m.tool_calls))


def _aligned(a: list[MessageView], b: list[MessageView]) -> Iterable[tuple[MessageView, MessageView]]:
    """Message pairs to compare: identical messages first, then, inside each stretch that
    differs, messages of the same role and tool names (an edited turn and its original)."""
    exact = SequenceMatcher(None, [_exact(m) for m in a], [_exact(m) for m in b], autojunk=False)
    for tag, i1, i2, j1, j2 in exact.get_opcodes():
        if tag == "equal":
            yield from zip(a[i1:i2], b[j1:j2], strict=True)
        elif tag == "replace":
            keys = SequenceMatcher(
                None, [_key(m) for m in a[i1:i2]], [_key(m) for m in b[j1:j2]], autojunk=False
            )
            for i, j, n in keys.get_matching_blocks():
                yield from zip(a[i1 + i : i1 + i + n], b[j1 + j : j1 + j + n], strict=True)


def _shown(m: MessageView) -> str | None:
    return m.content.text if m.content is not None and not m.content.lazy_url else None


Setter = Callable[[WordDiff], None]


def _content_setter(ma: MessageView, mb: MessageView) -> Setter:
    def apply(d: WordDiff) -> None:
        ma.content_diff, mb.content_diff = d.a, d.b

    return apply


def _call_setter(ca, cb) -> Setter:
    def apply(d: WordDiff) -> None:
        ca.diff, cb.diff = d.a, d.b

    return apply


def _text_pairs(aligned: list[tuple[MessageView, MessageView]]) -> list[tuple[str, str, Setter]]:
    pairs: list[tuple[str, str, Setter]] = []
    for ma, mb in aligned:
        ta, tb = _shown(ma), _shown(mb)
        if ta and tb:
            pairs.append((ta, tb, _content_setter(ma, mb)))
        pairs.extend(
            (ca.arguments, cb.arguments, _call_setter(ca, cb))
            for ca, cb in zip(ma.tool_calls, mb.tool_calls, strict=False)
        )
    return pairs


def apply_pair_diff(
    a: list[MessageView], b: list[MessageView], *, threshold: float = SIMILARITY_THRESHOLD
) -> float:
    """Align the two message lists and, when the aligned messages' word similarity is above
    `threshold`, mark the changed words on both sides (in place). Turns one side adds (a
    retry, an extra call) stay unmarked and do not count against the similarity, as long as
    most messages of each side have a partner. Returns the similarity, 0..1."""
    aligned = list(_aligned(a, b))
    if not aligned or len(aligned) < MIN_ALIGNED * max(len(a), len(b)):
        return 0.0
    pairs = _text_pairs(aligned)
    bag_a = Counter(w for text, _, _ in pairs for w in text.split())
    bag_b = Counter(w for _, text, _ in pairs for w in text.split())
    total = bag_a.total() + bag_b.total()
    if not total or total > MAX_WORDS:
        return 1.0 if not total else 0.0
    # Shared words bound the similarity from above: unrelated rollouts stop here, cheaply.
    if 2 * (bag_a & bag_b).total() / total <= threshold:
        return 0.0
    pending: list[tuple[Setter, WordDiff]] = []
    matched = 0
    for text_a, text_b, setter in pairs:
        if text_a == text_b:
            matched += len(text_a.split())
            continue
        d = word_diff(text_a, text_b)
        matched += d.matched
        pending.append((setter, d))
    similarity = 2 * matched / total
    if similarity > threshold:
        for setter, d in pending:
            setter(d)
    return similarity
